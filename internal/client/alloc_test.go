package client

import (
	"context"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

type constPolicy struct{ k int }

func (c *constPolicy) Select(t int) int          { return t % c.k }
func (c *constPolicy) Observe(int, int, float64) {}

// TestStepAllocations: once a session runs, a round allocates nothing in
// the SDK (the in-process path; gRPC's codec allocates its own buffers).
func TestStepAllocations(t *testing.T) {
	for _, n := range []int{8, 1000} {
		l, err := NewLocal(sdk.Plugin{Name: "c", New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return &constPolicy{k: s.Arms}, nil }})
		if err != nil {
			t.Fatal(err)
		}
		reps := make([]uint64, n)
		for i := range reps {
			reps[i] = uint64(i)
		}
		s, err := l.Open(context.Background(), &OpenRequest{Arms: 3, Horizon: 1 << 30, Replications: reps, InitPulls: 1})
		if err != nil {
			t.Fatal(err)
		}
		arms := make([]int32, n)
		rewards := make([]float64, n)
		round := 1
		if _, err := s.Step(context.Background(), &Step{Round: round}); err != nil {
			t.Fatal(err)
		}
		st := &Step{PrevArms: arms, PrevRewards: rewards}
		allocs := testing.AllocsPerRun(200, func() {
			round++
			st.Round = round
			res, err := s.Step(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			copy(arms, res.Arms)
		})
		// With more than one chunk the fan-out starts goroutines, whose
		// closures may allocate a little; the per-replication work itself
		// must not.
		limit := 0.0
		if n > 32 { // the SDK's smallest chunk
			limit = 4
		}
		if allocs > limit {
			t.Errorf("n=%d: %v allocations per round, want <= %v", n, allocs, limit)
		}
	}
}

// TestSocketStepAllocations: a round on the step socket allocates nothing
// on either side once the session runs, with a cancellable context as the
// engine passes (both ends run in this process, so AllocsPerRun sees both).
func TestSocketStepAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own around system calls")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 500
	p := sdk.Plugin{Name: "c", Version: "0", New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return &constPolicy{k: s.Arms}, nil }}
	rc, err := ServeInProcess(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Attach(rc, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	reps := make([]uint64, n)
	for i := range reps {
		reps[i] = uint64(i)
	}
	s, err := c.Open(ctx, &OpenRequest{Arms: 3, Horizon: 1 << 30, Replications: reps, InitPulls: 1, Family: sdk.Gaussian, NoiseSD: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.(*clientSession).sock == nil {
		t.Fatal("the session is not on the step socket")
	}
	arms := make([]int32, n)
	rewards := make([]float64, n)
	round := 1
	if _, err := s.Step(ctx, &Step{Round: round}); err != nil {
		t.Fatal(err)
	}
	st := &Step{PrevArms: arms, PrevRewards: rewards}
	allocs := testing.AllocsPerRun(200, func() {
		round++
		st.Round = round
		res, err := s.Step(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		copy(arms, res.Arms)
	})
	if allocs > 0 {
		t.Errorf("%v allocations per round on the step socket, want 0", allocs)
	}
}
