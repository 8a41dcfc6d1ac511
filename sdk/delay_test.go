package sdk

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// observer records every call in order.
type observer struct {
	mu    *sync.Mutex
	idx   uint64
	calls *[]string
}

func (o *observer) Select(t int) int {
	o.mu.Lock()
	*o.calls = append(*o.calls, fmt.Sprintf("r%d select %d", o.idx, t))
	o.mu.Unlock()
	return 1
}

func (o *observer) Observe(t, arm int, reward float64) {
	o.mu.Lock()
	*o.calls = append(*o.calls, fmt.Sprintf("r%d observe %d %d %v", o.idx, t, arm, reward))
	o.mu.Unlock()
}

// TestObserveOnArrival: a per-replication policy is told of each reward
// when it arrives, in pulled-round order, before Select of the round; and
// the SDK refuses arrivals that break the protocol's rules.
func TestObserveOnArrival(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	c, err := newCore(Plugin{Name: "obs", Version: "0", New: func(s Session, r Replica) (Policy, error) {
		if s.Feedback.Delayed() && s.Feedback != (Feedback{Kind: Delay, Delay: 1}) {
			return nil, fmt.Errorf("Session.Feedback %+v", s.Feedback)
		}
		return &observer{mu: &mu, idx: r.Index, calls: &calls}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	open := func() uint64 {
		id, err := c.open(&openRequest{Arms: 2, Horizon: 5, Replications: []uint64{10, 11}, Family: Gaussian, NoiseSD: 1, InitPulls: 1,
			Feedback: Feedback{Kind: Delay, Delay: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := open()
	steps := []struct {
		prev []int32
		arr  []Arrival
	}{
		{nil, nil},
		{[]int32{0, 0}, nil},
		{[]int32{1, 1}, []Arrival{{0, 1, 0, 0.1}, {1, 1, 0, 0.2}}},
		{[]int32{1, 1}, []Arrival{{1, 2, 1, 0.4}}},
	}
	for k, s := range steps {
		if _, err := c.step(id, k+1, s.prev, nil, s.arr, false); err != nil {
			t.Fatalf("round %d: %v", k+1, err)
		}
	}
	want := []string{
		"r10 observe 1 0 0.1", "r10 select 3", "r11 observe 1 0 0.2", "r11 select 3",
		"r10 select 4", "r11 observe 2 1 0.4", "r11 select 4",
	}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls\n%q\nwant\n%q", calls, want)
	}

	for _, c2 := range []struct {
		name    string
		round   int
		prev    []int32
		rewards []float64
		arr     []Arrival
		err     string
	}{
		{"rewards under delay", 2, []int32{0, 0}, []float64{1, 1}, nil, "want 2 arms and no rewards"},
		{"too many", 2, []int32{0, 0}, nil, []Arrival{{0, 1, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}}, "3 arrivals, but only 2 rewards are pending"},
		{"future round", 2, []int32{0, 0}, nil, []Arrival{{0, 2, 0, 0}}, "pulled in round 2, want 1..1"},
		{"bad index", 2, []int32{0, 0}, nil, []Arrival{{2, 1, 0, 0}}, "index 2, want 0..1"},
		{"bad arm", 2, []int32{0, 0}, nil, []Arrival{{1, 1, 5, 0}}, "replication 11: arm 5 out of range"},
		{"out of order", 2, []int32{0, 0}, nil, []Arrival{{1, 1, 0, 0}, {0, 1, 0, 0}}, "must be ordered by index, then round"},
	} {
		id := open()
		if _, err := c.step(id, 1, nil, nil, nil, false); err != nil {
			t.Fatal(err)
		}
		_, err := c.step(id, c2.round, c2.prev, c2.rewards, c2.arr, false)
		if err == nil || !strings.Contains(err.Error(), c2.err) {
			t.Errorf("%s: %v, want %q", c2.name, err, c2.err)
		}
	}
	// Arrivals in an immediate session are refused.
	imm, err := c.open(&openRequest{Arms: 2, Horizon: 5, Replications: []uint64{1}, Family: Gaussian, NoiseSD: 1, InitPulls: 1})
	if err != nil {
		t.Fatal(err)
	} else {
		c.step(imm, 1, nil, nil, nil, false)
		if _, err := c.step(imm, 2, []int32{0}, []float64{1}, []Arrival{{0, 1, 0, 1}}, false); err == nil || !strings.Contains(err.Error(), "under immediate feedback") {
			t.Errorf("arrivals under immediate feedback: %v", err)
		}
	}
	// Unknown or malformed modes are refused at open.
	for _, fb := range []Feedback{{Kind: "lag"}, {Kind: Delay, Delay: -1}, {Kind: Batch}, {Kind: Geometric, Mean: math.NaN()}} {
		if _, err := c.open(&openRequest{Arms: 2, Horizon: 5, Replications: []uint64{1}, InitPulls: 1, Feedback: fb}); err == nil {
			t.Errorf("open with feedback %+v accepted", fb)
		}
	}
}
