// Command pool is a cheating plugin for host/cli's audit test
// (audit_test.go), written on the public SDK alone. Every replication of
// a batch faces the same arms, so a BatchPolicy that pools what it sees
// across its replications learns the means as many times faster as the
// batch is large: each round, every replication pulls the arm with the
// best mean over the whole batch's rewards (greedy, after the forced
// rounds). No sandbox stops it; it reads nothing but the protocol. What
// betrays it is that a replication's arms depend on the others it is
// played with: alone, it plays differently.
package main

import (
	"math"

	"github.com/regretbench/regretbench/sdk"
)

type pool struct {
	k      int
	sum, n []float64 // per arm, over every replication of the batch
}

func (p *pool) Step(st *sdk.BatchStep) error {
	for i, a := range st.PrevArms {
		if i < len(st.PrevRewards) {
			p.sum[a] += st.PrevRewards[i]
			p.n[a]++
		}
	}
	best, bestMean := 0, math.Inf(-1)
	for a := 0; a < p.k; a++ {
		m := math.Inf(1)
		if p.n[a] > 0 {
			m = p.sum[a] / p.n[a]
		}
		if m > bestMean {
			best, bestMean = a, m
		}
	}
	for i := range st.Arms {
		st.Arms[i] = int32(best)
	}
	return nil
}

func main() {
	sdk.Serve(sdk.Plugin{
		Name:    "cheat-pool",
		Version: "0.1.0",
		NewBatch: func(s sdk.Session, replicas []sdk.Replica) (sdk.BatchPolicy, error) {
			return &pool{k: s.Arms, sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}, nil
		},
	})
}
