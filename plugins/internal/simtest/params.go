package simtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// CheckParamRanges checks that p's declared parameter ranges mirror what
// its New refuses (NewContextual, for a contextual-only plugin, on a
// Bernoulli session of 3 features): for each bound, the value just outside it is refused
// both by sdk.Resolve (so bench refuses it before a run starts) and by New
// (so an older host, which ignores ranges, still gets an error), and the
// value just inside is accepted by both. Values just outside and inside
// are the bound and its neighbour: the next float64, or the next integer.
func CheckParamRanges(t *testing.T, p sdk.Plugin) {
	t.Helper()
	for _, d := range p.Params {
		for _, side := range []struct {
			b    *sdk.Bound
			name string
			dir  float64 // towards the inside of the range
		}{{d.Min, "min", 1}, {d.Max, "max", -1}} {
			if side.b == nil {
				continue
			}
			inside, outside := side.b.Value, side.b.Value
			next := func(v float64) float64 { return math.Nextafter(v, side.dir*math.Inf(1)) }
			prev := func(v float64) float64 { return math.Nextafter(v, -side.dir*math.Inf(1)) }
			if d.Type == sdk.Int {
				next = func(v float64) float64 { return v + side.dir }
				prev = func(v float64) float64 { return v - side.dir }
			}
			if side.b.Exclusive {
				inside = next(inside)
			} else {
				outside = prev(outside)
			}
			for _, c := range []struct {
				v  float64
				ok bool
			}{{inside, true}, {outside, false}} {
				var v any = c.v
				if d.Type == sdk.Int {
					v = int64(c.v)
				}
				params, rerr := sdk.Resolve(p.Params, map[string]any{d.Name: v})
				if (rerr == nil) != c.ok {
					t.Errorf("%s: %s = %v (%s %v): Resolve error %v, want accepted %v", p.Name, d.Name, v, side.name, side.b.Value, rerr, c.ok)
				}
				if params == nil {
					params, _ = sdk.Resolve(p.Params, nil)
					params[d.Name] = v
				}
				if nerr := build(p, params); (nerr == nil) != c.ok {
					t.Errorf("%s: %s = %v (%s %v): %s error %v, want accepted %v", p.Name, d.Name, v, side.name, side.b.Value, ctor(p), nerr, c.ok)
				}
			}
		}
	}
}

// ctor names the constructor build calls.
func ctor(p sdk.Plugin) string {
	if p.New == nil && p.NewContextual != nil {
		return "NewContextual"
	}
	return "New"
}

// build builds one policy of p with params: a context-free one by New, or,
// for a contextual-only plugin, a contextual one by NewContextual.
func build(p sdk.Plugin, params sdk.Params) error {
	r := sdk.Replica{Index: 0, Rand: rand.New(rand.NewPCG(1, 2))}
	if ctor(p) == "NewContextual" {
		_, err := p.NewContextual(sdk.Session{Arms: 2, Horizon: 10, Family: sdk.Bernoulli, Params: params,
			Context: sdk.ContextShape{Dim: 3}}, r)
		return err
	}
	_, err := p.New(sdk.Session{Arms: 2, Horizon: 10, Family: sdk.Gaussian, NoiseSD: 1, NoiseKnown: true,
		InitPulls: 1, Params: params}, r)
	return err
}
