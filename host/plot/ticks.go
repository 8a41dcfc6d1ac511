package plot

import (
	"math"
	"slices"
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
	if _, log := t.Ticker.(logTicks); log && !(min > 0) {
		return nil // no logarithm to take
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

// minLogLabels is how many labelled ticks logTicks gives at least.
const minLogLabels = 3

// maxLogLabels bounds the labelled decades of logTicks.
const maxLogLabels = 7

// logTicks ticks a log axis with at least three labels whatever its
// range (gonum's LogTicks labels only the powers of ten inside it: "1"
// and "10" on [1, 10], one label or none on [0.5, 3]). It labels the
// powers of ten when three or more fall in the range (every s-th one when
// more than seven do, s the smallest step that leaves at most seven),
// else 1, 2 and 5 times each power of ten, else 1, 2, ..., 9 times each;
// and a range too narrow even for those gets the round values of
// linearTicks. Unlabelled ticks mark the other multiples of each decade
// (or the decades between labels).
type logTicks struct{}

// Ticks implements gonumplot.Ticker.
func (logTicks) Ticks(min, max float64) []gonumplot.Tick {
	if !(min > 0) || !(max >= min) || !finite(min) || !finite(max) {
		return nil
	}
	e0, e1 := int(math.Ceil(math.Log10(min))), int(math.Floor(math.Log10(max)))
	// Log10 rounds: keep only powers within the range.
	for e0 <= e1 && pow10(e0) < min {
		e0++
	}
	for e1 >= e0 && pow10(e1) > max {
		e1--
	}
	if n := e1 - e0 + 1; n >= minLogLabels {
		step := (n + maxLogLabels - 1) / maxLogLabels
		var out []gonumplot.Tick
		for e := e0; e <= e1; e++ {
			v := pow10(e)
			if e%step == 0 {
				out = append(out, gonumplot.Tick{Value: v, Label: logLabel(v)})
				continue
			}
			out = append(out, gonumplot.Tick{Value: v})
		}
		if step == 1 && n <= 4 {
			out = append(out, multiples(min, max, []float64{2, 3, 4, 5, 6, 7, 8, 9}, false)...)
		}
		return sortTicks(out)
	}
	for _, ms := range [][]float64{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		labelled := multiples(min, max, ms, true)
		if len(labelled) >= minLogLabels {
			var rest []float64
			for m := 2.0; m <= 9; m++ {
				if !slices.Contains(ms, m) {
					rest = append(rest, m)
				}
			}
			return sortTicks(append(labelled, multiples(min, max, rest, false)...))
		}
	}
	return linearTicks{}.Ticks(min, max)
}

// multiples returns m*10^e for each m of ms inside [min, max], labelled
// or not.
func multiples(min, max float64, ms []float64, label bool) []gonumplot.Tick {
	var out []gonumplot.Tick
	for e := int(math.Floor(math.Log10(min))) - 1; e <= int(math.Ceil(math.Log10(max))); e++ {
		for _, m := range ms {
			v := m * pow10(e)
			if v < min || v > max {
				continue
			}
			tk := gonumplot.Tick{Value: v}
			if label {
				tk.Label = logLabel(v)
			}
			out = append(out, tk)
		}
	}
	return out
}

func pow10(e int) float64 { return math.Pow(10, float64(e)) }

// logLabel writes v as "0.5", "20", "1e+06": plain between 1e-4 and 1e6,
// with an exponent beyond.
func logLabel(v float64) string {
	if a := math.Abs(v); a != 0 && (a < 1e-4 || a >= 1e6) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func sortTicks(ts []gonumplot.Tick) []gonumplot.Tick {
	slices.SortStableFunc(ts, func(a, b gonumplot.Tick) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	return ts
}
