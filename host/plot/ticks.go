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
// A range that is not finite, is reversed, or (for LogTicks) reaches zero
// gets no ticks rather than a panic.
type ticks struct{ gonumplot.Ticker }

// Ticks implements gonumplot.Ticker.
func (t ticks) Ticks(min, max float64) []gonumplot.Tick {
	if !finite(min) || !finite(max) || !(max >= min) {
		return nil
	}
	if _, log := t.Ticker.(gonumplot.LogTicks); log && !(min > 0) {
		return nil // gonum's LogTicks panics
	}
	var out []gonumplot.Tick
	for _, tk := range t.Ticker.Ticks(min, max) {
		if tk.Value < min || tk.Value > max || !finite(tk.Value) {
			continue
		}
		if strings.Contains(tk.Label, ".") && !strings.ContainsAny(tk.Label, "eE") {
			tk.Label = strings.TrimRight(strings.TrimRight(tk.Label, "0"), ".")
		}
		out = append(out, tk)
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// maxLinearTicks bounds the labelled ticks of linearTicks: about five are
// wanted, so more means a step too small to advance.
const maxLinearTicks = 20

// linearTicks labels about five round values (1, 2 or 5 times a power of
// ten) across the range, where gonum's DefaultTicks often labels only two.
// A range too small, too large or not finite for round steps (denormal,
// under an ulp a tick, overflowing) gets its two ends instead: never an
// endless loop nor DefaultTicks' panic.
type linearTicks struct{}

// Ticks implements gonumplot.Ticker.
func (linearTicks) Ticks(min, max float64) []gonumplot.Tick {
	if !(max > min) || !finite(min) || !finite(max) {
		return endTicks(min, max)
	}
	raw := (max - min) / 5
	if math.IsInf(raw, 0) {
		raw = max/5 - min/5 // max - min overflowed
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	if !(mag > 0) || !finite(mag) {
		return endTicks(min, max) // raw underflowed (a denormal range)
	}
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if raw/step <= 1.5 {
			break
		}
		step = m * mag
	}
	start := math.Ceil(min/step) * step
	if !finite(start) || !finite(step) || start+step == start || (max-start)/step > maxLinearTicks {
		return endTicks(min, max) // the step is below an ulp of the values
	}
	prec := max0(-int(math.Floor(math.Log10(step))))
	format := func(v float64) string { return strconv.FormatFloat(v+0, 'f', prec, 64) }
	if prec > 8 || step >= 1e15 {
		format = func(v float64) string { return strconv.FormatFloat(v+0, 'g', 4, 64) }
	}
	var out []gonumplot.Tick
	for v, n := start, 0; v <= max+step*1e-9 && n <= maxLinearTicks; v, n = v+step, n+1 {
		out = append(out, gonumplot.Tick{Value: v, Label: format(v)})
		// Minor ticks halfway, unlabelled.
		if h := v + step/2; h <= max {
			out = append(out, gonumplot.Tick{Value: h})
		}
	}
	return out
}

// endTicks labels the finite ends of a range that has no round ticks.
func endTicks(min, max float64) []gonumplot.Tick {
	if !(max >= min) {
		return nil
	}
	var out []gonumplot.Tick
	for _, v := range []float64{min, max} {
		if finite(v) && (len(out) == 0 || v > out[0].Value) {
			out = append(out, gonumplot.Tick{Value: v, Label: strconv.FormatFloat(v+0, 'g', 4, 64)})
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
