// Command ctxpool is a cheating contextual plugin for the end-to-end
// tests of contextual scenarios (contextual_sandbox_test.go), on the
// public SDK alone. It carries no data and reads nothing: it pools what
// the replications of its batch learn. Every replication of a dataset
// scenario plays the same rows, in its own order; a sealed run transforms
// each replication's features and relabels its classes, but keeps each
// row's norm, and the rows that share a class in one replication share
// it in every other. So it names each row by its norm, and when two rows
// paid the same arm in one replication it records that they are of one
// class, for every replication: a replication that meets a row of a class
// whose arm it knows answers that arm. Within a single replication no row
// comes twice, so the same plugin playing each replication alone (as the
// audit replays it) learns nothing from a row, and its arms differ.
//
// Its diagnostic "pooled" is the fraction of the rounds so far whose arm
// came from a class known through another replication's rewards.
package main

import (
	"math"

	"github.com/regretbench/regretbench/sdk"
)

type outcome struct{ row, arm int }

type pool struct {
	k      int
	ids    map[int64]int // a norm, rounded to 1e-9, -> row
	parent []int         // union-find over rows: one set per class found so far
	paid   [][]outcome   // per replication: rows that paid, and their arm
	failed [][]outcome   // per replication: arms that did not pay
	rounds []int
	pooled []int
}

func (p *pool) row(x []float64) int {
	var s float64
	for _, v := range x {
		s += v * v
	}
	key := int64(math.Round(math.Sqrt(s) * 1e9))
	id, ok := p.ids[key]
	if !ok {
		id = len(p.parent)
		p.ids[key] = id
		p.parent = append(p.parent, id)
	}
	return id
}

func (p *pool) find(i int) int {
	for p.parent[i] != i {
		p.parent[i] = p.parent[p.parent[i]]
		i = p.parent[i]
	}
	return i
}

// choose is replication r's arm for row i, and whether it came from
// what the pool knows.
func (p *pool) choose(r, i int) (int, bool) {
	g := p.find(i)
	mapped := make([]bool, p.k)
	for _, o := range p.paid[r] {
		if p.find(o.row) == g {
			return o.arm, true
		}
		mapped[o.arm] = true
	}
	bad := make([]bool, p.k)
	for _, o := range p.failed[r] {
		if p.find(o.row) == g {
			bad[o.arm] = true
		}
	}
	for a := range p.k {
		if !mapped[a] && !bad[a] {
			return a, false
		}
	}
	return 0, false
}

func (p *pool) Step(s *sdk.BatchStep) error {
	n := len(s.Arms)
	w := len(s.Contexts) / n
	if s.Round > 1 {
		for r := range n {
			i, a := p.row(s.PrevContexts[r*w:(r+1)*w]), int(s.PrevArms[r])
			if s.PrevRewards[r] == 1 {
				for _, o := range p.paid[r] {
					if o.arm == a {
						p.parent[p.find(i)] = p.find(o.row) // one class
					}
				}
				p.paid[r] = append(p.paid[r], outcome{i, a})
			} else {
				p.failed[r] = append(p.failed[r], outcome{i, a})
			}
		}
	}
	for r := range n {
		a, known := p.choose(r, p.row(s.Contexts[r*w:(r+1)*w]))
		s.Arms[r] = int32(a)
		p.rounds[r]++
		if known {
			p.pooled[r]++
		}
		if s.Diagnostics != nil {
			s.Diagnostics[0][r] = float64(p.pooled[r]) / float64(p.rounds[r])
		}
	}
	return nil
}

func main() {
	sdk.Serve(sdk.Plugin{
		Name: "cheat-ctx-pool", Version: "0.0.1",
		Diagnostics: []string{"pooled"},
		NewContextualBatch: func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
			n := len(reps)
			return &pool{k: s.Arms, ids: map[int64]int{}, paid: make([][]outcome, n), failed: make([][]outcome, n),
				rounds: make([]int, n), pooled: make([]int, n)}, nil
		},
	})
}
