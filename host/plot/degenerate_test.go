package plot

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	gonumplot "gonum.org/v1/plot"

	"github.com/regretbench/regretbench/host/results"
)

// maxTicks bounds the ticks a marker may return for any range: enough for
// a log axis over the whole float64 range, far from an endless loop.
const maxTicks = 8000

// TestTicksDegenerateRanges: the tick markers return a bounded set of
// finite ticks within the range for any range at all, and never loop or
// panic. Before, a denormal or sub-ulp range looped forever in
// linearTicks (its step added nothing), an empty or infinite range reached
// gonum's DefaultTicks ("illegal range" or an endless loop), and LogTicks
// panicked on a range reaching 0.
func TestTicksDegenerateRanges(t *testing.T) {
	next := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	inf, nan, maxf := math.Inf(1), math.NaN(), math.MaxFloat64
	ranges := []struct{ min, max float64 }{
		{0, 1}, {1, 2000},
		{0, 0}, {1, 1}, {-3, -3}, {1e300, 1e300}, // empty
		{0, 5e-324}, {5e-324, 1e-323}, {-5e-324, 5e-324}, // denormal
		{1e300, next(1e300)}, {1, next(1)}, {2000, next(2000)}, // under an ulp per tick
		{0, maxf}, {-maxf, maxf}, {1.7e308, maxf}, // overflowing spans
		{0, inf}, {-inf, inf}, {-inf, 0}, {inf, inf}, // infinite
		{nan, 1}, {0, nan}, {nan, nan}, // not numbers
		{2, 1}, {0, -1e-300}, // reversed
	}
	markers := map[string]gonumplot.Ticker{
		"linear": ticks{linearTicks{}},
		"log":    ticks{logTicks{}},
	}
	for name, m := range markers {
		for _, r := range ranges {
			tks := m.Ticks(r.min, r.max)
			if len(tks) > maxTicks {
				t.Errorf("%s ticks of [%g, %g]: %d ticks", name, r.min, r.max, len(tks))
			}
			for _, tk := range tks {
				if math.IsNaN(tk.Value) || math.IsInf(tk.Value, 0) || tk.Value < r.min || tk.Value > r.max {
					t.Errorf("%s ticks of [%g, %g]: tick %g (%q) outside the range", name, r.min, r.max, tk.Value, tk.Label)
				}
			}
		}
	}
	// Ordinary ranges keep their round ticks.
	var labels []string
	for _, tk := range markers["linear"].Ticks(0, 2000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := len(labels); got != 5 || labels[0] != "0" || labels[4] != "2000" {
		t.Errorf("linear ticks of [0, 2000]: labels %v", labels)
	}
}

// degenerate is a results file of one policy over checkpoints 10, 100 and
// 1000 with diagnostic d, edited by each case of TestFiguresDegenerate.
func degenerate() *results.File {
	s := func(v ...float64) results.Series { return results.Series{Mean: v, SE: []float64{0, 0, 0}} }
	return &results.File{
		Schema:   results.Schema,
		Scenario: results.Scenario{Name: "degenerate", Family: "gaussian", Arms: 2, Horizon: 1000, Runs: 2, Means: []float64{1, 0}, NoiseSD: 1},
		Shard:    results.Shard{Count: 1},
		Complete: true,
		Policies: []*results.Policy{{
			Label: "P", Plugin: "p", Status: results.StatusOK, Checkpoints: []int{10, 100, 1000},
			Regret: s(1, 2, 3), Under: s(1, 5, 9), RegretUnder: s(0, 1, 2), RegretNot: s(1, 1, 1),
			Final:       map[string][]float64{"regret": {3, 3}},
			Diagnostics: map[string]results.DiagSeries{"d": {Checkpoints: []int{10, 100, 1000}, Mean: []float64{1, 10, 100}, SE: []float64{0, 0, 0}}},
		}},
	}
}

// TestFiguresDegenerate: every figure of a file with degenerate values is
// drawn in every format, without looping or panicking. The reader refuses
// the non-finite and overflowing ones, but Write takes any *results.File.
// Before, 1.7e308 (mean + SE overflows) looped forever, and denormal
// values, an empty diagnostic or a single checkpoint panicked with "Values
// must be greater than 0 for a log scale".
func TestFiguresDegenerate(t *testing.T) {
	const tiny = 5e-324
	for _, c := range []struct {
		name string
		edit func(p *results.Policy)
	}{
		{"mean + SE overflows", func(p *results.Policy) {
			p.Regret.Mean[2], p.Regret.SE[2] = 1.7e308, 1.7e308
			p.Diagnostics["d"].SE[1] = math.MaxFloat64
		}},
		{"largest floats", func(p *results.Policy) {
			p.Regret.Mean = []float64{-math.MaxFloat64, 0, math.MaxFloat64}
			p.Under.Mean = []float64{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64}
		}},
		{"infinite and NaN", func(p *results.Policy) {
			p.Regret.Mean[1], p.Regret.SE[0] = math.Inf(1), math.NaN()
			p.Under.Mean = []float64{math.Inf(1), math.NaN(), math.Inf(-1)}
			p.Diagnostics["d"].Mean[0] = math.Inf(1)
		}},
		{"denormal", func(p *results.Policy) {
			p.Regret.Mean, p.Regret.SE = []float64{0, tiny, 2 * tiny}, []float64{tiny, tiny, tiny}
			p.Under.Mean = []float64{0, 0, tiny} // one point on a log axis
			p.RegretUnder.Mean, p.RegretNot.Mean = []float64{tiny, tiny, tiny}, []float64{0, 0, tiny}
			p.Diagnostics["d"] = results.DiagSeries{Checkpoints: []int{10, 100, 1000}, Mean: []float64{tiny, 10 * tiny, 100 * tiny}, SE: []float64{0, 0, 0}}
		}},
		{"empty diagnostic", func(p *results.Policy) {
			p.Diagnostics["d"] = results.DiagSeries{}
		}},
		{"single checkpoint", func(p *results.Policy) {
			p.Checkpoints = []int{1000}
			for _, s := range []*results.Series{&p.Regret, &p.Under, &p.RegretUnder, &p.RegretNot} {
				s.Mean, s.SE = []float64{0.5}, []float64{0}
			}
			p.Diagnostics["d"] = results.DiagSeries{Checkpoints: []int{1000}, Mean: []float64{3}, SE: []float64{1}}
		}},
		{"constant values", func(p *results.Policy) {
			for _, s := range []*results.Series{&p.Regret, &p.Under, &p.RegretUnder, &p.RegretNot} {
				s.Mean = []float64{1e300, 1e300, 1e300}
			}
			p.Diagnostics["d"] = results.DiagSeries{Checkpoints: []int{10, 100, 1000}, Mean: []float64{1e-300, 1e-300, 1e-300}, SE: []float64{0, 0, 0}}
		}},
		{"all zero", func(p *results.Policy) {
			for _, s := range []*results.Series{&p.Regret, &p.Under, &p.RegretUnder, &p.RegretNot} {
				s.Mean = []float64{0, 0, 0}
			}
			p.Diagnostics["d"] = results.DiagSeries{Checkpoints: []int{10, 100, 1000}, Mean: []float64{0, 0, 0}, SE: []float64{0, 0, 0}}
		}},
		{"within an ulp", func(p *results.Policy) {
			x := 1e300
			y := math.Nextafter(x, math.Inf(1))
			p.Regret.Mean = []float64{x, y, y}
			p.Under.Mean = []float64{x, y, y}
			p.Diagnostics["d"] = results.DiagSeries{Checkpoints: []int{10, 100, 1000}, Mean: []float64{1, math.Nextafter(1, 2), 1}, SE: []float64{0, 0, 0}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := degenerate()
			c.edit(f.Policies[0])
			dir := t.TempDir()
			paths, err := Write(f, dir, "png", "svg", "pdf")
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 15 {
				t.Fatalf("wrote %d files, want 5 figures x 3 formats: %v", len(paths), paths)
			}
			for _, p := range paths {
				if st, err := os.Stat(p); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", filepath.Base(p), err)
				}
			}
		})
	}
}
