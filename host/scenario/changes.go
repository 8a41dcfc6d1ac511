package scenario

import (
	"fmt"
	"math"
	"slices"

	"github.com/regretbench/regretbench/host/env"
)

// MaxChangePoints bounds the points of `changes:` and of `drift:`.
const MaxChangePoints = 100_000

// MaxChangeRate bounds random_changes.rate, the expected breakpoints per
// round: at most one a round on average.
const MaxChangeRate = 1.0

// Change is one point of a changing environment (design §8): from round
// At on (`changes:`), or at round At exactly (`drift:`), the arm means are
// Means (before scale).
type Change struct {
	// At is the round, in 2..horizon: round 1's means are
	// environment.means.
	At int `yaml:"at" json:"at"`
	// Means are the K arm means from (or at) round At.
	Means []float64 `yaml:"means,flow" json:"means"`
}

// RandomChanges is `random_changes:`: breakpoints at the arrivals of a
// Poisson process of Rate per round, each redrawing every arm's mean from
// Means, in each replication on its own (design §4: under the scenario's
// common random numbers).
type RandomChanges struct {
	// Rate is the expected number of breakpoints per round, in (0, 1].
	Rate float64 `yaml:"rate" json:"rate"`
	// Means is the distribution each arm's new mean is drawn from.
	Means *MeanDistribution `yaml:"means,flow" json:"means"`
}

// MeanDistribution is the distribution means are redrawn from: Uniform
// [lo, hi], the only one so far.
type MeanDistribution struct {
	// Uniform is [lo, hi], lo <= hi: uniform on [lo, hi).
	Uniform []float64 `yaml:"uniform,flow" json:"uniform"`
}

// Changing reports whether the environment's means change over the rounds:
// whether it has `changes:`, `drift:` or `random_changes:`.
func (e Environment) Changing() bool {
	return len(e.Changes) > 0 || len(e.Drift) > 0 || e.RandomChanges != nil
}

// scaled returns the points with their means multiplied by the scale.
func scaled(points []Change, scale float64) []Change {
	if points == nil {
		return nil
	}
	out := make([]Change, len(points))
	for i, p := range points {
		out[i] = Change{At: p.At, Means: slices.Clone(p.Means)}
		if scale != 0 {
			for j := range out[i].Means {
				out[i].Means[j] *= scale
			}
		}
	}
	return out
}

// TrueChanges returns `changes:` with the scale applied, fresh slices.
func (s *Scenario) TrueChanges() []Change { return scaled(s.Environment.Changes, s.Environment.Scale) }

// TrueDrift returns `drift:` with the scale applied, fresh slices.
func (s *Scenario) TrueDrift() []Change { return scaled(s.Environment.Drift, s.Environment.Scale) }

// TrueRandomChanges returns `random_changes:` with the scale applied to
// the distribution's bounds; nil without it.
func (s *Scenario) TrueRandomChanges() *RandomChanges {
	r := s.Environment.RandomChanges
	if r == nil || r.Means == nil {
		return nil
	}
	u := slices.Clone(r.Means.Uniform)
	if sc := s.Environment.Scale; sc != 0 {
		for i := range u {
			u[i] *= sc
		}
	}
	return &RandomChanges{Rate: r.Rate, Means: &MeanDistribution{Uniform: u}}
}

// requiredChangeKeys lists the keys of the change points and of
// random_changes that Parse requires (a missing at would read as 0).
func (s *Scenario) requiredChangeKeys() []struct{ key, what string } {
	var out []struct{ key, what string }
	for _, l := range []struct {
		name   string
		points []Change
	}{{"changes", s.Environment.Changes}, {"drift", s.Environment.Drift}} {
		for i := range l.points {
			p := fmt.Sprintf("environment.%s[%d]", l.name, i)
			out = append(out,
				struct{ key, what string }{p + ".at", "the round, 2..horizon"},
				struct{ key, what string }{p + ".means", "one mean per arm"})
		}
	}
	if s.Environment.RandomChanges != nil {
		out = append(out,
			struct{ key, what string }{"environment.random_changes.rate", "the expected breakpoints per round, in (0, 1]"},
			struct{ key, what string }{"environment.random_changes.means", "the distribution new means are drawn from, {uniform: [lo, hi]}"})
	}
	return out
}

// checkChanges reports the problems of a changing environment's
// `changes:`, `drift:` and `random_changes:`: at most one of them; points
// strictly increasing in (1, horizon] with one valid mean per arm; a rate
// in (0, 1] and bounds lo <= hi valid for the family. checkMean judges one
// mean as environment.means are judged. It returns the largest |mean x
// scale| it saw, for the overflow bound, and the field that holds it
// ("environment.drift[2].means[1]"), which an overflow error names.
func (s *Scenario) checkChanges(bad func(field, format string, args ...any), checkMean func(field string, m float64) bool, horizonOK bool) (float64, string) {
	e := s.Environment
	var given []string
	if e.Changes != nil {
		given = append(given, "changes")
	}
	if e.Drift != nil {
		given = append(given, "drift")
	}
	if e.RandomChanges != nil {
		given = append(given, "random_changes")
	}
	if len(given) > 1 {
		bad("environment."+given[1], "give one of changes, drift and random_changes, not %s and %s", given[0], given[1])
	}
	scale := 1.0
	if e.Scale > 0 {
		scale = e.Scale
	}
	maxMu, maxField := 0.0, ""
	// seen keeps the largest |mean x scale| and its field.
	seen := func(field string, m float64) {
		if mu := math.Abs(m * scale); mu > maxMu || maxField == "" {
			maxMu, maxField = mu, field
		}
	}
	k := len(e.Means)
	for _, l := range []struct {
		name   string
		points []Change
		what   string
	}{
		{"changes", e.Changes, "changes hold from round at on"},
		{"drift", e.Drift, "means move linearly from one point to the next"},
	} {
		if l.points == nil {
			continue
		}
		field := "environment." + l.name
		switch n := len(l.points); {
		case n == 0:
			bad(field, "empty; omit the key for means that do not change")
			continue
		case n > MaxChangePoints:
			bad(field, "%d points, more than the %d allowed", n, MaxChangePoints)
			continue
		}
		for i, p := range l.points {
			pf := fmt.Sprintf("%s[%d]", field, i)
			switch {
			case p.At == 0:
				// missing: reported by Parse
			case horizonOK && (p.At < 2 || p.At > s.Horizon):
				bad(pf+".at", "%d is outside (1, horizon %d] (round 1's means are environment.means)", p.At, s.Horizon)
			case i > 0 && p.At <= l.points[i-1].At:
				bad(pf+".at", "%d is not greater than %s[%d].at = %d (%s; points must be strictly increasing)", p.At, field, i-1, l.points[i-1].At, l.what)
			}
			if p.Means == nil {
				continue // missing: reported by Parse
			}
			if len(p.Means) != k {
				bad(pf+".means", "%d means for %d arms (environment.means has %d)", len(p.Means), k, k)
				continue
			}
			for j, m := range p.Means {
				if f := fmt.Sprintf("%s.means[%d]", pf, j); checkMean(f, m) {
					seen(f, m)
				}
			}
		}
	}
	if r := e.RandomChanges; r != nil {
		const field = "environment.random_changes"
		if !(r.Rate > 0 && r.Rate <= MaxChangeRate) {
			bad(field+".rate", "want a number in (0, %g] (expected breakpoints per round), got %v", MaxChangeRate, r.Rate)
		}
		if r.Means != nil {
			switch u := r.Means.Uniform; {
			case u == nil:
				bad(field+".means", "want {uniform: [lo, hi]}, the distribution every new mean is drawn from")
			case len(u) != 2:
				bad(field+".means.uniform", "want [lo, hi], two numbers, got %d", len(u))
			default:
				okLo := checkMean(field+".means.uniform[0]", u[0])
				okHi := checkMean(field+".means.uniform[1]", u[1])
				if okLo && okHi {
					if u[0] > u[1] {
						bad(field+".means.uniform", "lo %v is greater than hi %v", u[0], u[1])
					}
					seen(field+".means.uniform[0]", u[0])
					seen(field+".means.uniform[1]", u[1])
				}
			}
		}
	}
	return maxMu, maxField
}

// trimChanges adapts the changes to a shorter horizon T (SetHorizon), so
// that the first T rounds keep the means they had: change points after T
// are dropped, and drift points after T are replaced by the point at T
// on the line to the next one.
func (s *Scenario) trimChanges(T int) {
	e := &s.Environment
	if len(e.Changes) > 0 {
		i := slices.IndexFunc(e.Changes, func(c Change) bool { return c.At > T })
		if i == 0 {
			e.Changes = nil
		} else if i > 0 {
			e.Changes = slices.Clone(e.Changes[:i])
		}
	}
	if len(e.Drift) > 0 {
		i := slices.IndexFunc(e.Drift, func(c Change) bool { return c.At > T })
		if i < 0 {
			return
		}
		prev := Change{At: 1, Means: e.Means}
		if i > 0 {
			prev = e.Drift[i-1]
		}
		next := e.Drift[i]
		kept := slices.Clone(e.Drift[:i])
		if prev.At < T && T >= 2 {
			m := make([]float64, len(prev.Means))
			env.Interpolate(m, prev.Means, next.Means, prev.At, next.At, T)
			kept = append(kept, Change{At: T, Means: m})
		}
		if len(kept) == 0 {
			kept = nil
		}
		e.Drift = kept
	}
}
