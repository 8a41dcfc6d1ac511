package env

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/internal/seed"
)

// ChangeKind says how the means of a changing environment move.
type ChangeKind int

// The kinds of change (design §8).
const (
	// Steps: piecewise-stationary, the means of Points[j] from round
	// Points[j].At on.
	Steps ChangeKind = iota + 1
	// Drift: the means move linearly from one point to the next (round 1:
	// the environment's means), constant after the last point.
	Drift
	// Poisson: breakpoints at the arrivals of a Poisson process of Rate
	// per round, every arm's mean redrawn uniform on [Low, High), drawn
	// in each replication from a stream of its own.
	Poisson
)

// Point is one point of Steps or Drift: the means from, or at, round At.
type Point struct {
	At    int
	Means []float64
}

// Changes describes how the means of an environment move over the rounds;
// a nil *Changes is a stationary environment.
type Changes struct {
	Kind      ChangeKind
	Points    []Point // Steps, Drift: At strictly increasing, in 2..horizon
	Rate      float64 // Poisson: expected breakpoints per round, > 0
	Low, High float64 // Poisson: new means uniform on [Low, High)
}

// check refuses changes the environment cannot follow.
func (c *Changes) check(k int) error {
	switch c.Kind {
	case Steps, Drift:
		if len(c.Points) == 0 {
			return fmt.Errorf("env: changes without points")
		}
		for j, p := range c.Points {
			if len(p.Means) != k {
				return fmt.Errorf("env: change %d has %d means for %d arms", j, len(p.Means), k)
			}
			if p.At < 2 || (j > 0 && p.At <= c.Points[j-1].At) {
				return fmt.Errorf("env: change %d at round %d: rounds must be >= 2 and strictly increasing", j, p.At)
			}
		}
	case Poisson:
		if !(c.Rate > 0) || math.IsInf(c.Rate, 0) || !(c.Low <= c.High) {
			return fmt.Errorf("env: random changes need a rate > 0 and low <= high, got rate %v, [%v, %v]", c.Rate, c.Low, c.High)
		}
	default:
		return fmt.Errorf("env: unknown kind of change %d", c.Kind)
	}
	return nil
}

// Interpolate sets out to the means at round t on the line from a (at
// round ta) to b (at round tb), ta <= t <= tb, ta < tb: a + (b - a) w with
// w = (t - ta) / (tb - ta), each product rounded on its own (no fused
// multiply-add), so that every machine computes the same bits.
//
// At t = tb it is b exactly (a + (b - a) need not be).
func Interpolate(out, a, b []float64, ta, tb, t int) {
	if t >= tb {
		copy(out, b)
		return
	}
	w := float64(t-ta) / float64(tb-ta)
	for i := range out {
		out[i] = a[i] + float64((b[i]-a[i])*w)
	}
}

// changesTag separates a replication's change stream (random changes)
// from its reward and delay streams.
const changesTag = 0x6368616e6765732d // "changes-"

// tagSecretChanges is the domain tag of the key of the change streams
// under a secret seed.
const tagSecretChanges = "regretbench/secret/changes/v1\x00"

// changeRand returns the change stream of replication rep: keyed by the
// environment key and rep only, like the delay stream, so every policy,
// batch and shard sees the same breakpoints and means.
func (e *Env) changeRand(rep uint64) *rand.Rand {
	if e.secret {
		return rand.New(macPCG(hmac.New(sha256.New, e.changeMAC[:]), rep))
	}
	k := seed.Mix(e.key[0] ^ seed.Mix(rep))
	return rand.New(rand.NewPCG(k^changesTag, seed.Mix(e.key[1]^changesTag)))
}

// Path follows the true means of one replication round by round: the
// best arm, mu2 and the gaps of the round in play. Of a stationary
// environment it never moves.
type Path struct {
	e     *Env
	means []float64 // of the round in play; e.Means when stationary
	best  int
	mu2   float64
	gaps  []float64
	round int

	next int        // Steps, Drift: the next point
	from Point      // Drift: the point the means move away from
	rng  *rand.Rand // Poisson
	// Poisson: the next breakpoint's arrival time (continuous) and the
	// means it brings; nextAt is 0 when none comes before the horizon's
	// end of the representable rounds.
	arrival float64
	nextAt  int
	pending []float64
}

// NewPath returns the path of replication rep, at round 1.
func (e *Env) NewPath(rep uint64) *Path {
	p := &Path{e: e, means: e.Means, best: e.best, mu2: e.mu2, gaps: e.gaps, round: 1}
	c := e.changes
	if c == nil {
		return p
	}
	p.means = append([]float64(nil), e.Means...)
	p.gaps = append([]float64(nil), e.gaps...)
	switch c.Kind {
	case Drift:
		p.from = Point{At: 1, Means: e.Means}
	case Poisson:
		p.rng = e.changeRand(rep)
		p.arrival = 1
		p.pending = make([]float64, len(e.Means))
		p.draw()
	}
	return p
}

// draw draws the next Poisson arrival and the means it brings.
func (p *Path) draw() {
	c := p.e.changes
	p.arrival += p.rng.ExpFloat64() / c.Rate
	if !(p.arrival < math.MaxInt32*1024) {
		p.nextAt = 0 // beyond any horizon
	} else {
		p.nextAt = int(math.Ceil(p.arrival))
	}
	for i := range p.pending {
		p.pending[i] = c.Low + float64((c.High-c.Low)*p.rng.Float64())
	}
}

// Advance moves the path to round t, the next round (rounds are visited
// in order from 1), and reports whether the means changed.
func (p *Path) Advance(t int) bool {
	p.round = t
	c := p.e.changes
	if c == nil {
		return false
	}
	changed := false
	switch c.Kind {
	case Steps:
		for p.next < len(c.Points) && c.Points[p.next].At <= t {
			copy(p.means, c.Points[p.next].Means)
			p.next++
			changed = true
		}
	case Drift:
		for p.next < len(c.Points) && c.Points[p.next].At < t {
			p.from = c.Points[p.next]
			p.next++
		}
		if p.next < len(c.Points) {
			Interpolate(p.means, p.from.Means, c.Points[p.next].Means, p.from.At, c.Points[p.next].At, t)
			changed = true
		} else if p.from.At == t-1 {
			copy(p.means, p.from.Means) // the last point: constant from here on
			changed = true
		}
	case Poisson:
		// Arrivals in one round make one breakpoint: the means of the
		// last of them hold.
		for p.nextAt != 0 && p.nextAt <= t {
			copy(p.means, p.pending)
			changed = true
			p.draw()
		}
	}
	if changed {
		p.best, p.mu2 = bestSecond(p.means)
		for i, m := range p.means {
			p.gaps[i] = p.means[p.best] - m
		}
	}
	return changed
}

// Means are the true means of the round in play. The slice is the path's
// own, updated in place by Advance.
func (p *Path) Means() []float64 { return p.means }

// Best is the best arm of the round in play (the first index among the
// maxima).
func (p *Path) Best() int { return p.best }

// Second is mu2 of the round in play (-Inf when every arm ties).
func (p *Path) Second() float64 { return p.mu2 }

// Gaps are mu_b - mu_i of the round in play, updated in place by Advance.
func (p *Path) Gaps() []float64 { return p.gaps }

// bestSecond returns the best arm (the first index among the maxima) and
// the largest mean strictly below it (-Inf when every arm ties).
func bestSecond(means []float64) (int, float64) {
	best := 0
	for i, m := range means {
		if m > means[best] {
			best = i
		}
	}
	mu2 := math.Inf(-1)
	for _, m := range means {
		if m < means[best] && m > mu2 {
			mu2 = m
		}
	}
	return best, mu2
}
