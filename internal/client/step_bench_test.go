package client

import (
	"context"
	"fmt"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// BenchmarkStep measures one round of a context-free session of 500
// replications of a trivial policy, in process and on the step socket
// (both ends in this process): the protocol's own cost per round, which
// contextual sessions must not raise for context-free ones.
func BenchmarkStep(b *testing.B) {
	const n = 500
	p := sdk.Plugin{Name: "c", Version: "0", New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return &constPolicy{k: s.Arms}, nil }}
	for _, mode := range []string{"local", "socket", "stream"} {
		b.Run(mode, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var c Conn
			if mode == "local" {
				l, err := NewLocal(p)
				if err != nil {
					b.Fatal(err)
				}
				c = l
			} else {
				rc, err := ServeInProcess(ctx, p)
				if err != nil {
					b.Fatal(err)
				}
				cl, err := Attach(rc, StartOptions{NoSocket: mode == "stream"})
				if err != nil {
					b.Fatal(err)
				}
				defer cl.Close()
				if _, err := cl.Describe(ctx); err != nil {
					b.Fatal(err)
				}
				c = cl
			}
			reps := make([]uint64, n)
			for i := range reps {
				reps[i] = uint64(i)
			}
			s, err := c.Open(ctx, &OpenRequest{Arms: 3, Horizon: 1 << 40, Replications: reps, InitPulls: 1, Family: sdk.Gaussian, NoiseSD: 1})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Step(ctx, &Step{Round: 1}); err != nil {
				b.Fatal(err)
			}
			arms := make([]int32, n)
			st := &Step{PrevArms: arms, PrevRewards: make([]float64, n)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st.Round = i + 2
				res, err := s.Step(ctx, st)
				if err != nil {
					b.Fatal(err)
				}
				copy(arms, res.Arms)
			}
		})
	}
}

// BenchmarkContextualStep measures one round of a contextual session of
// 100 replications with contexts of d = 16 and d = 784 values (the
// contexts of the round travel as one block), per transport, for a
// policy that reads its context (argmax): the protocol's cost of
// carrying contexts.
func BenchmarkContextualStep(b *testing.B) {
	const n, arms = 100, 10
	p := sdk.Plugin{Name: "c", Version: "0", NewContextualBatch: func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
		w := s.Context.Width(s.Arms)
		return stepFunc(func(st *sdk.BatchStep) error {
			for i := range reps {
				a, p := argmax(st.Contexts[i*w:(i+1)*w], s)
				st.Arms[i], st.Probs[i] = int32(a), p
			}
			return nil
		}), nil
	}}
	for _, dim := range []int{16, 784} {
		for _, mode := range []string{"local", "socket", "stream"} {
			b.Run(fmt.Sprintf("d=%d/%s", dim, mode), func(b *testing.B) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var c Conn
				if mode == "local" {
					l, err := NewLocal(p)
					if err != nil {
						b.Fatal(err)
					}
					c = l
				} else {
					rc, err := ServeInProcess(ctx, p)
					if err != nil {
						b.Fatal(err)
					}
					cl, err := Attach(rc, StartOptions{NoSocket: mode == "stream"})
					if err != nil {
						b.Fatal(err)
					}
					defer cl.Close()
					if _, err := cl.Describe(ctx); err != nil {
						b.Fatal(err)
					}
					c = cl
				}
				reps := make([]uint64, n)
				for i := range reps {
					reps[i] = uint64(i)
				}
				s, err := c.Open(ctx, &OpenRequest{Arms: arms, Horizon: 1 << 40, Replications: reps, Family: sdk.Gaussian, NoiseSD: 1, Context: sdk.ContextShape{Dim: dim}})
				if err != nil {
					b.Fatal(err)
				}
				contexts := make([]float64, n*dim)
				for i := range contexts {
					contexts[i] = float64(i%97) / 97
				}
				if _, err := s.Step(ctx, &Step{Round: 1, Contexts: contexts}); err != nil {
					b.Fatal(err)
				}
				arms := make([]int32, n)
				st := &Step{PrevArms: arms, PrevRewards: make([]float64, n), Contexts: contexts}
				b.ReportAllocs()
				b.SetBytes(int64(8 * n * dim))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					st.Round = i + 2
					res, err := s.Step(ctx, st)
					if err != nil {
						b.Fatal(err)
					}
					copy(arms, res.Arms)
				}
			})
		}
	}
}
