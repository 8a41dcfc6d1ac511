package metric

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestSummarizeAgreesWithGonum: Summarize's mean and standard error are
// gonum's (stat.MeanStdDev, stat.StdErr) to within rounding, on samples of
// every size the host summarises.
func TestSummarizeAgreesWithGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 10, 100, 1000, 30000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 50 + 40*r.NormFloat64()
		}
		s := Summarize(xs)
		mean, sd := stat.MeanStdDev(xs, nil)
		se := stat.StdErr(sd, float64(n))
		if d := math.Abs(s.Mean - mean); d > 1e-12*math.Abs(mean) {
			t.Errorf("n=%d: mean %v, gonum %v", n, s.Mean, mean)
		}
		if d := math.Abs(s.SE - se); d > 1e-9*se {
			t.Errorf("n=%d: se %v, gonum %v", n, s.SE, se)
		}
	}
}

// TestSummarizeSequential: Summarize adds the values one after the other,
// in replication order, on every platform. That is why it does not call
// gonum's stat.Mean: on amd64 that sums with assembly in eight partial
// sums whose split depends on the slice's memory alignment, so the same
// values could give means a bit apart on two machines, or two runs; a
// results file must be bit-identical wherever it is computed
// (docs/design.md, section 4). The test finds values on which
// the two sums differ, where they can, and checks Summarize's is the
// sequential one.
func TestSummarizeSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	differ := false
	for trial := 0; trial < 200; trial++ {
		xs := make([]float64, 37)
		for i := range xs {
			xs[i] = math.Ldexp(r.Float64(), r.IntN(60)-30)
		}
		var seq float64
		for _, x := range xs {
			seq += x
		}
		want := seq / float64(len(xs))
		if got := Summarize(xs).Mean; math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: mean %v, want the sequential sum's %v", trial, got, want)
		}
		if stat.Mean(xs, nil) != want {
			differ = true
		}
	}
	if !differ {
		t.Logf("gonum's stat.Mean matched the sequential sum on every trial here (a platform without its assembly)")
	}
}
