package ridge

import (
	"slices"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// TestBankShapes: which model each arm uses and the features it sees, in
// both context shapes, with and without the intercept.
func TestBankShapes(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6} // per-arm: 3 arms of 2 features; shared: 2 features
	for _, tc := range []struct {
		name      string
		perArm    bool
		intercept bool
		models    int
		arm2      []float64
	}{
		{"shared", false, false, 3, []float64{1, 2}},
		{"shared intercept", false, true, 3, []float64{1, 2, 1}},
		{"per-arm", true, false, 1, []float64{5, 6}},
		{"per-arm intercept", true, true, 1, []float64{5, 6, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sdk.Session{Arms: 3, Params: sdk.Params{"intercept": tc.intercept},
				Context: sdk.ContextShape{Dim: 2, PerArm: tc.perArm}}
			b, err := NewBank("test", s, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.models) != tc.models {
				t.Errorf("%d models, want %d", len(b.models), tc.models)
			}
			if got := b.X(x, 2); !slices.Equal(got, tc.arm2) {
				t.Errorf("arm 2 sees %v, want %v", got, tc.arm2)
			}
			if b.Model(2).Dim() != len(tc.arm2) {
				t.Errorf("arm 2's model has dimension %d, want %d", b.Model(2).Dim(), len(tc.arm2))
			}
			if same := b.Model(0) == b.Model(2); same != tc.perArm {
				t.Errorf("arms 0 and 2 share a model: %v, want %v", same, tc.perArm)
			}
			b.Observe(x, 2, 1)
			if b.Model(2).N() != 1 || (!tc.perArm && b.Model(0).N() != 0) {
				t.Error("Observe did not update arm 2's model alone")
			}
		})
	}
	if _, err := NewBank("test", sdk.Session{Arms: 2}, 1); err == nil {
		t.Error("a context-free session was accepted")
	}
}
