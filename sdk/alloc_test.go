package sdk

import (
	"context"
	"testing"
)

type constPolicy struct{ k int }

func (c *constPolicy) Select(t int) int          { return t % c.k }
func (c *constPolicy) Observe(int, int, float64) {}

// TestStepAllocations: once a session runs, a round allocates nothing in
// the SDK (the in-process path; gRPC's codec allocates its own buffers).
func TestStepAllocations(t *testing.T) {
	for _, n := range []int{8, 1000} {
		l, err := NewLocal(Plugin{Name: "c", New: func(s Session, r Replica) (Policy, error) { return &constPolicy{k: s.Arms}, nil }})
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
		if _, err := s.Step(context.Background(), round, nil, nil, false); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(200, func() {
			round++
			res, err := s.Step(context.Background(), round, arms, rewards, false)
			if err != nil {
				t.Fatal(err)
			}
			copy(arms, res.Arms)
		})
		// With more than one chunk the fan-out starts goroutines, whose
		// closures may allocate a little; the per-replication work itself
		// must not.
		limit := 0.0
		if n > minChunk {
			limit = 4
		}
		if allocs > limit {
			t.Errorf("n=%d: %v allocations per round, want <= %v", n, allocs, limit)
		}
	}
}
