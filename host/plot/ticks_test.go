package plot

import (
	"math"
	"testing"
)

// TestLogTicksThreeLabels: a log axis has at least three labelled ticks,
// inside its range and increasing, whatever the range (gonum's LogTicks
// labelled only "1" and "10" on [1, 10], and only "1" on [0.5, 3]).
func TestLogTicksThreeLabels(t *testing.T) {
	for _, r := range []struct {
		min, max float64
		want     []string // the labels, when given
	}{
		{0.5, 3, []string{"0.5", "1", "2"}},
		{1, 10, []string{"1", "2", "5", "10"}},
		{3, 40000, []string{"10", "100", "1000", "10000"}},
		{1, 1000, []string{"1", "10", "100", "1000"}},
		{1.1, 1.9, nil},
		{1.01, 1.02, nil},
		{2, 3, nil},
		{7, 12, nil},
		{0.02, 0.06, nil},
		{1e-9, 1e-8, nil},
		{1, 1e12, nil},
		{1e-300, 1e300, nil},
		{123, 98765, nil},
		{0.9, 1.2, nil},
	} {
		var labels []string
		prev := math.Inf(-1)
		for _, tk := range (ticks{logTicks{}}).Ticks(r.min, r.max) {
			if tk.Value < r.min || tk.Value > r.max || tk.Value < prev {
				t.Errorf("[%g, %g]: tick %g out of range or order", r.min, r.max, tk.Value)
			}
			prev = tk.Value
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) < 3 || len(labels) > 12 {
			t.Errorf("[%g, %g]: %d labelled ticks %q, want 3 to 12", r.min, r.max, len(labels), labels)
		}
		if r.want != nil && !equal(labels, r.want) {
			t.Errorf("[%g, %g]: labels %q, want %q", r.min, r.max, labels, r.want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
