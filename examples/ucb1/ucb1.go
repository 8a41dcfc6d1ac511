package main

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/sdk"
)

// params declares UCB1's one parameter; bench plugins lists it.
var params = []sdk.Param{{Name: "alpha", Type: sdk.Float, Default: 2.0, Min: sdk.Inclusive(0),
	Doc: "exploration factor: index = mean + scale*sqrt(alpha*log(t)/n)"}}

// ucb1 is UCB1 (Auer, Cesa-Bianchi and Fischer 2002) for one replication,
// its confidence width scaled by the known noise sd (1 when unknown).
type ucb1 struct {
	alpha, scale float64
	sum, n       []float64
}

func newUCB1(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	scale := 1.0
	if s.NoiseKnown && s.Family == sdk.Gaussian {
		scale = s.NoiseSD
	}
	alpha := s.Params.Float("alpha")
	if !(alpha >= 0) {
		// bench refuses this already (params declares Min); an older
		// host does not.
		return nil, fmt.Errorf("ucb1-example: alpha must be >= 0, got %v", alpha)
	}
	return &ucb1{alpha: alpha, scale: scale,
		sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}, nil
}

// Select pulls an unpulled arm first, then the largest index; ties go to
// the lowest arm.
func (u *ucb1) Select(t int) int {
	best, bestV := 0, math.Inf(-1)
	for i := range u.n {
		v := math.Inf(1)
		if u.n[i] > 0 {
			v = u.sum[i]/u.n[i] + u.scale*math.Sqrt(u.alpha*math.Log(float64(t))/u.n[i])
		}
		if v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Observe records the reward of the arm pulled in round t.
func (u *ucb1) Observe(t, arm int, reward float64) { u.sum[arm] += reward; u.n[arm]++ }
