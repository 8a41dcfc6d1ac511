package plot

import (
	"math"
	"strconv"
	"strings"

	gonumplot "gonum.org/v1/plot"
)

// ticks wraps a tick marker: it drops ticks outside [min, max] (gonum's
// LogTicks returns the next power of ten, whose label then pads the axes
// away from the title and leaves a blank band) and trims trailing zeros
// from labels (DefaultTicks writes "250.00" when few ticks are labelled).
type ticks struct{ gonumplot.Ticker }

// Ticks implements gonumplot.Ticker.
func (t ticks) Ticks(min, max float64) []gonumplot.Tick {
	var out []gonumplot.Tick
	for _, tk := range t.Ticker.Ticks(min, max) {
		if tk.Value < min || tk.Value > max {
			continue
		}
		if strings.Contains(tk.Label, ".") && !strings.ContainsAny(tk.Label, "eE") {
			tk.Label = strings.TrimRight(strings.TrimRight(tk.Label, "0"), ".")
		}
		out = append(out, tk)
	}
	return out
}

// linearTicks labels about five round values (1, 2 or 5 times a power of
// ten) across the range, where gonum's DefaultTicks often labels only two.
type linearTicks struct{}

// Ticks implements gonumplot.Ticker.
func (linearTicks) Ticks(min, max float64) []gonumplot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return gonumplot.DefaultTicks{}.Ticks(min, max)
	}
	raw := (max - min) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if raw/step <= 1.5 {
			break
		}
		step = m * mag
	}
	prec := max0(-int(math.Floor(math.Log10(step))))
	var out []gonumplot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		out = append(out, gonumplot.Tick{Value: v, Label: strconv.FormatFloat(v+0, 'f', prec, 64)})
		// Minor ticks halfway, unlabelled.
		if h := v + step/2; h <= max {
			out = append(out, gonumplot.Tick{Value: h})
		}
	}
	return out
}

func max0(x int) int {
	if x < 0 {
		return 0
	}
	return x
}
