package feedback

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/internal/wire"
)

// TestScheduleDue: when a reward of round t arrives under each mode.
func TestScheduleDue(t *testing.T) {
	never := func(i, t int) int { panic("a delay drawn for a mode without random delays") }
	for _, c := range []struct {
		fb   Feedback
		t    []int
		want []int
	}{
		{Feedback{}, []int{1, 2, 50}, []int{2, 3, 51}},
		{Feedback{Kind: Delay}, []int{1, 2, 50}, []int{2, 3, 51}},
		{Feedback{Kind: Delay, Delay: 10}, []int{1, 2, 50}, []int{12, 13, 61}},
		// Rounds ((k-1)B, kB] arrive at kB+1.
		{Feedback{Kind: Batch, Batch: 100}, []int{1, 99, 100, 101, 200, 201}, []int{101, 101, 101, 201, 201, 301}},
		{Feedback{Kind: Batch, Batch: 1}, []int{1, 7}, []int{2, 8}},
	} {
		s := NewSchedule(c.fb, never)
		for k, tt := range c.t {
			if got := s.Due(tt, 0); got != c.want[k] {
				t.Errorf("%s: reward of round %d due at %d, want %d", c.fb, tt, got, c.want[k])
			}
		}
	}
	// Geometric: t+d+1, with the delay d drawn for that replication and
	// round, once.
	type key struct{ i, t int }
	drawn := map[key]int{}
	s := NewSchedule(Feedback{Kind: Geometric, Mean: 4}, func(i, t int) int {
		drawn[key{i, t}]++
		return 3*i + t%5
	})
	for tt := 1; tt <= 50; tt++ {
		for i := range 2 {
			if got, want := s.Due(tt, i), tt+3*i+tt%5+1; got != want {
				t.Fatalf("replication %d, round %d: due %d, want %d", i, tt, got, want)
			}
		}
	}
	for k, n := range drawn {
		if n != 1 {
			t.Fatalf("delay of %v drawn %d times", k, n)
		}
	}
}

// TestGeometricDelay: the delay a uniform stands for is geometric with the
// given mean (the sample mean of many, within 1%), a uniform of 1 is no
// delay, a mean of 0 is none, and a uniform near 0 is capped.
func TestGeometricDelay(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	sum := 0
	for range n {
		sum += GeometricDelay(1-r.Float64(), 4)
	}
	if m := float64(sum) / n; math.Abs(m-4) > 0.04 {
		t.Errorf("sample mean %v, want 4", m)
	}
	for _, c := range []struct {
		u, mean float64
		want    int
	}{
		{1, 4, 0}, {0.5, 0, 0}, {0.5, -1, 0}, {0.5, 1, 1}, {0.24, 1, 2}, {math.SmallestNonzeroFloat64, 1e15, maxGeometricDelay}, {0, 4, maxGeometricDelay},
	} {
		if got := GeometricDelay(c.u, c.mean); got != c.want {
			t.Errorf("GeometricDelay(%v, %v) = %d, want %d", c.u, c.mean, got, c.want)
		}
	}
}

// TestMailbox: arrivals come out at their round, ordered by replication
// then pulled round, rewards due after the horizon are dropped, and a
// round without arrivals gives none.
func TestMailbox(t *testing.T) {
	m := NewMailbox(3, 10)
	m.Post(5, 2, 1, 1, 0.21)
	m.Post(5, 0, 1, 0, 0.01)
	m.Post(5, 2, 3, 0, 0.23)
	m.Post(11, 1, 9, 1, 0.19) // after the horizon
	m.Post(5, 1, 4, 1, 0.14)
	m.Post(5, 0, 4, 1, 0.04)
	m.Post(6, 1, 5, 0, 0.15)
	if got := m.Take(4); len(got) != 0 {
		t.Errorf("round 4: %v, want none", got)
	}
	want := []wire.Arrival{
		{Index: 0, Round: 1, Arm: 0, Reward: 0.01}, {Index: 0, Round: 4, Arm: 1, Reward: 0.04},
		{Index: 1, Round: 4, Arm: 1, Reward: 0.14},
		{Index: 2, Round: 1, Arm: 1, Reward: 0.21}, {Index: 2, Round: 3, Arm: 0, Reward: 0.23},
	}
	if got := m.Take(5); !slices.Equal(got, want) {
		t.Errorf("round 5: %v, want %v", got, want)
	}
	if got := m.Take(5); len(got) != 0 {
		t.Errorf("round 5 taken twice: %v", got)
	}
	if got := m.Take(6); !slices.Equal(got, []wire.Arrival{{Index: 1, Round: 5, Arm: 0, Reward: 0.15}}) {
		t.Errorf("round 6: %v", got)
	}
	if len(m.due) != 0 {
		t.Errorf("%d rounds still pending; the reward due after the horizon was kept", len(m.due))
	}
}
