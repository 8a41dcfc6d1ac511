package engine

import (
	"slices"
	"testing"

	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// TestScheduleDue: when a reward of round t arrives under each mode.
func TestScheduleDue(t *testing.T) {
	e, _ := env.New(sdk.Gaussian, []float64{1, 0}, 1, seed.Int(1))
	for _, c := range []struct {
		fb   sdk.Feedback
		t    []int
		want []int
	}{
		{sdk.Feedback{Kind: sdk.Delay}, []int{1, 2, 50}, []int{2, 3, 51}},
		{sdk.Feedback{Kind: sdk.Delay, Delay: 10}, []int{1, 2, 50}, []int{12, 13, 61}},
		// Rounds ((k-1)B, kB] arrive at kB+1.
		{sdk.Feedback{Kind: sdk.Batch, Batch: 100}, []int{1, 99, 100, 101, 200, 201}, []int{101, 101, 101, 201, 201, 301}},
		{sdk.Feedback{Kind: sdk.Batch, Batch: 1}, []int{1, 7}, []int{2, 8}},
	} {
		s := newSchedule(c.fb, e, []uint64{0})
		for k, tt := range c.t {
			if got := s.due(tt, 0); got != c.want[k] {
				t.Errorf("%s: reward of round %d due at %d, want %d", c.fb, tt, got, c.want[k])
			}
		}
	}
	// Geometric: one draw per round from the replication's own stream.
	fb := sdk.Feedback{Kind: sdk.Geometric, Mean: 4}
	s := newSchedule(fb, e, []uint64{7, 3})
	r7, r3 := e.Delays(7), e.Delays(3)
	for tt := 1; tt <= 50; tt++ {
		if got, want := s.due(tt, 0), tt+env.GeometricDelay(r7, 4)+1; got != want {
			t.Fatalf("replication 7, round %d: due %d, want %d", tt, got, want)
		}
		if got, want := s.due(tt, 1), tt+env.GeometricDelay(r3, 4)+1; got != want {
			t.Fatalf("replication 3, round %d: due %d, want %d", tt, got, want)
		}
	}
}

// TestMailbox: arrivals come out at their round, ordered by replication
// then pulled round, rewards due after the horizon are dropped, and a
// round without arrivals gives none.
func TestMailbox(t *testing.T) {
	m := newMailbox(3, 10)
	m.post(5, 2, 1, 1, 0.21)
	m.post(5, 0, 1, 0, 0.01)
	m.post(5, 2, 3, 0, 0.23)
	m.post(11, 1, 9, 1, 0.19) // after the horizon
	m.post(5, 1, 4, 1, 0.14)
	m.post(5, 0, 4, 1, 0.04)
	m.post(6, 1, 5, 0, 0.15)
	if got := m.take(4); len(got) != 0 {
		t.Errorf("round 4: %v, want none", got)
	}
	want := []client.Arrival{
		{Index: 0, Round: 1, Arm: 0, Reward: 0.01}, {Index: 0, Round: 4, Arm: 1, Reward: 0.04},
		{Index: 1, Round: 4, Arm: 1, Reward: 0.14},
		{Index: 2, Round: 1, Arm: 1, Reward: 0.21}, {Index: 2, Round: 3, Arm: 0, Reward: 0.23},
	}
	if got := m.take(5); !slices.Equal(got, want) {
		t.Errorf("round 5: %v, want %v", got, want)
	}
	if got := m.take(5); len(got) != 0 {
		t.Errorf("round 5 taken twice: %v", got)
	}
	if got := m.take(6); !slices.Equal(got, []client.Arrival{{Index: 1, Round: 5, Arm: 0, Reward: 0.15}}) {
		t.Errorf("round 6: %v", got)
	}
	if len(m.due) != 0 {
		t.Errorf("%d rounds still pending; the reward due after the horizon was kept", len(m.due))
	}
}
