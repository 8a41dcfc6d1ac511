package gate

import (
	"math"
	"testing"
)

func TestHolm(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		p    []float64
		want []float64
	}{
		{
			// Sorted: 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06;
			// 0.04 x1 = 0.04, raised to the running maximum 0.06.
			name: "hand-worked, with monotonicity",
			p:    []float64{0.01, 0.04, 0.03, 0.005},
			want: []float64{0.03, 0.06, 0.06, 0.02},
		},
		{
			// NaN entries are not tested and do not count: the family
			// has size 2, so 0.02 x2 = 0.04 and 0.3 x1 = 0.3.
			name: "NaN excluded from the family",
			p:    []float64{nan, 0.3, 0.02, nan},
			want: []float64{nan, 0.3, 0.04, nan},
		},
		{
			name: "capped at 1",
			p:    []float64{0.6, 0.9},
			want: []float64{1, 1},
		},
		{
			// Ties: both 0.02 get 3 x 0.02 = 0.06 then max(0.06, 2 x 0.02).
			name: "ties",
			p:    []float64{0.02, 0.5, 0.02},
			want: []float64{0.06, 0.5, 0.06},
		},
		{name: "single test is unadjusted", p: []float64{0.013}, want: []float64{0.013}},
		{name: "empty", p: nil, want: []float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Holm(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
			}
			for i := range got {
				if math.IsNaN(tc.want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(got[i]) && !close(got[i], tc.want[i], 1e-12)) {
					t.Fatalf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
				}
			}
		})
	}
}
