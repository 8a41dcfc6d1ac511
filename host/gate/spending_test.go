package gate

import (
	"math"
	"testing"
)

// TestBoundariesMatchPublished checks the recursion against the classic
// published design: five equally spaced looks, one-sided level 0.025,
// O'Brien–Fleming-type Lan–DeMets spending. The values are those of
// R's gsDesign (gsDesign(k = 5, test.type = 1, alpha = 0.025,
// sfu = sfLDOF)) and of Jennison and Turnbull's tables.
func TestBoundariesMatchPublished(t *testing.T) {
	want := []float64{4.8769, 3.3569, 2.6803, 2.2898, 2.0310}
	got, err := Boundaries(0.025, []float64{0.2, 0.4, 0.6, 0.8, 1})
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 2e-3 {
			t.Errorf("look %d: boundary %.4f, want %.4f (all: %v)", k+1, got[k], want[k], got)
		}
	}
}
