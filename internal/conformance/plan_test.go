package conformance

import (
	"slices"
	"testing"
)

// roundHorizon is the horizon a plugin that games the kit would switch
// on: a multiple of 1,000 of at least 2,000, as every shipped scenario's.
func roundHorizon(t int) bool { return t >= 2000 && t%1000 == 0 }

// TestPlanRoundSizes: over many seeds, the kit's sessions take round
// sizes, those of the shipped scenarios included, often: a round
// horizon of 2,000 or more in about bigP of the general sessions, half
// of the long ones and more than a third of batch-split's mid ones; every
// horizon, K and replication count of the shipped scenarios' sessions
// that fits a range is drawn; and the other values of each range too.
func TestPlanRoundSizes(t *testing.T) {
	const seeds = 4000
	for _, c := range []struct {
		name string
		opts []Option
		sz   sizes
	}{{"full", nil, fullSizes}, {"quick", []Option{Quick()}, quickSizes}} {
		t.Run(c.name, func(t *testing.T) {
			var general, long, mid int
			horizons, arms, reps := map[int]bool{}, map[int]bool{}, map[int]bool{}
			for seed := range uint64(seeds) {
				p := newPlan(newConfig(append([]Option{WithSeed(seed)}, c.opts...)), "deterministic-seed/socket")
				s := p.session(draw{})
				if roundHorizon(s.horizon) {
					general++
				}
				horizons[s.horizon], arms[s.arms], reps[len(s.reps)] = true, true, true
				l, m := p.long(1), p.mid(2)
				if roundHorizon(l.horizon) {
					long++
				}
				if roundHorizon(m.horizon) {
					mid++
				}
				horizons[l.horizon], horizons[m.horizon] = true, true
			}
			for _, f := range []struct {
				what string
				n    int
				min  float64
			}{{"general sessions", general, 0.8 * c.sz.bigP}, {"long sessions", long, 0.45}, {"mid sessions", mid, 0.35}} {
				if got := float64(f.n) / seeds; got < f.min {
					t.Errorf("%s: %.3f have a round horizon >= 2000, want >= %.3f", f.what, got, f.min)
				} else {
					t.Logf("%s: %.3f have a round horizon >= 2000", f.what, got)
				}
			}
			want := func(what string, got map[int]bool, vals ...int) {
				t.Helper()
				for _, v := range vals {
					if !got[v] {
						t.Errorf("%s %d never drawn", what, v)
					}
				}
			}
			// The shipped scenarios' values within the ranges, round
			// values, and values that are not round.
			want("horizon", horizons, 2000, 3000, 10_000, 20_000, 25_000, 100, 200, 30)
			want("K", arms, 2, 3, 10, 31, 80, 100, 7, 17, 43)
			want("replications", reps, 1, 2, 10, 50, 3, 7)
			if c.name == "full" {
				want("replications", reps, 100, 500, 200)
			}
			notRound := func(what string, got map[int]bool, lo, hi int) {
				t.Helper()
				for v := range got {
					if v >= lo && v <= hi && v%10 != 0 {
						return
					}
				}
				t.Errorf("no %s in %d..%d that is not a multiple of 10", what, lo, hi)
			}
			notRound("horizon", horizons, 21, c.sz.maxT)
			notRound("horizon", horizons, 1001, 19_999)
			notRound("horizon", horizons, 20_001, 25_000)
			notRound("K", arms, 21, 100)
		})
	}
}

// TestRoundIn: a round value lies in the range and is one of the real
// values or a multiple of a step; none when the range holds none.
func TestRoundIn(t *testing.T) {
	p := newPlan(newConfig([]Option{WithSeed(1)}), "x")
	for _, c := range []struct{ lo, hi int }{{2, 9}, {2, 100}, {21, 29}, {1000, 25_000}, {20_000, 25_000}, {45, 99}} {
		for range 200 {
			v, ok := p.roundIn(c.lo, c.hi, realArms)
			if !ok {
				if c.hi-c.lo >= 10 || slices.ContainsFunc(realArms, func(a int) bool { return a >= c.lo && a <= c.hi }) {
					t.Fatalf("[%d, %d]: no round value", c.lo, c.hi)
				}
				continue
			}
			if v < c.lo || v > c.hi || (v%10 != 0 && !slices.Contains(realArms, v)) {
				t.Fatalf("[%d, %d]: %d", c.lo, c.hi, v)
			}
		}
	}
	if v, ok := p.roundIn(21, 29, nil); ok {
		t.Errorf("[21, 29]: %d, want none", v)
	}
}
