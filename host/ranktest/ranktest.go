// Package ranktest compares k treatments (policies) over N blocks
// (experiments) by their ranks, as Demšar (2006) recommends for comparing
// several algorithms over several data sets ("Statistical comparisons of
// classifiers over multiple data sets", JMLR 7:1-30):
//
//   - in each block the treatments are ranked by score, 1 for the lowest
//     (the best, for a regret); tied scores share the average of the ranks
//     they span;
//   - the Friedman test asks whether the mean ranks R_j differ more than
//     chance allows: chi2_F = 12N/(k(k+1)) [sum_j R_j^2 - k(k+1)^2/4] on
//     k-1 degrees of freedom, and Iman and Davenport's F_F = (N-1) chi2_F /
//     (N(k-1) - chi2_F) on k-1 and (k-1)(N-1) degrees of freedom, which
//     Demšar prefers (chi2_F is conservative). Ties are ranked by their
//     average rank and the statistic is not corrected for them, as in
//     Demšar's worked example;
//   - the Nemenyi post-hoc test: two treatments differ significantly at
//     level alpha when their mean ranks differ by at least the critical
//     difference CD = q_alpha sqrt(k(k+1)/(6N)), where q_alpha is the
//     studentized range statistic for k means and infinite degrees of
//     freedom, divided by sqrt 2 (Demšar's Table 5).
//
// # Mean rank
//
// bench has one mean rank, Across's, and every table, figure and format
// (text, markdown, CSV, JSON, HTML, LaTeX, the critical-difference figure)
// shows that number or none:
//
//   - Experiments: every results file given, but one that reuses the run of
//     an earlier one counts once (same seed, horizon and runs, and
//     bit-identical final values for every policy they share: bench paper's
//     remaxgrad_two_arm is two_arm's run). The later one is listed as
//     counted once.
//   - Policies: those that ran (status ok) in every experiment counted. A
//     policy missing from, or failed in, some experiment is not ranked
//     anywhere, and is listed as such; a policy identical to an earlier one
//     of an experiment (Identical: same executable digest, parameters,
//     feedback and run, so seed) is listed as "identical to X" and not
//     ranked twice: left out when X is ranked, ranked in its stead when X
//     is not (X missing from some experiment).
//   - Ranks: within each experiment, by mean final value of the metric over
//     the replications, 1 for the lowest; equal means share the average of
//     the ranks they span. The mean rank is the mean over the experiments.
//
// A comparison table's per-scenario rank (host/compare) is the rank in that
// one experiment among its own policies, and is labelled so.
package ranktest

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Ranks returns the rank of each score within its block (row): 1 for the
// lowest score, k for the highest; scores that are equal share the average
// of the ranks they span (two tied for first both get 1.5).
func Ranks(scores [][]float64) [][]float64 {
	out := make([][]float64, len(scores))
	for i, row := range scores {
		out[i] = rankRow(row)
	}
	return out
}

func rankRow(row []float64) []float64 {
	idx := make([]int, len(row))
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case row[a] < row[b]:
			return -1
		case row[a] > row[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(row))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && row[idx[hi]] == row[idx[lo]] {
			hi++
		}
		// Positions lo..hi-1 share ranks lo+1..hi: their mean.
		avg := float64(lo+1+hi) / 2
		for _, j := range idx[lo:hi] {
			ranks[j] = avg
		}
		lo = hi
	}
	return ranks
}

// Friedman is the result of the Friedman test over N blocks of k
// treatments.
type Friedman struct {
	N, K      int
	MeanRanks []float64 // R_j, in the treatments' order
	ChiSq     float64   // chi2_F
	DF        int       // k-1
	P         float64   // of chi2_F under the chi-squared distribution with DF degrees of freedom
	// FF is Iman and Davenport's statistic, on DF1 = k-1 and DF2 =
	// (k-1)(N-1) degrees of freedom, and PF its p-value. FF is +Inf
	// (and PF 0) when every block ranks the treatments alike.
	FF       float64
	DF1, DF2 int
	PF       float64
}

// ErrTooFew is the error of FriedmanTest with fewer than two blocks or
// two treatments: there is nothing to rank or nothing to compare.
var ErrTooFew = errors.New("the Friedman test needs at least 2 experiments and 2 policies")

// FriedmanTest ranks the scores of each block (row; lower is better) and
// tests whether the treatments' (columns') mean ranks differ. Every row
// must have the same length and hold no NaN.
func FriedmanTest(scores [][]float64) (*Friedman, error) {
	n := len(scores)
	if n == 0 {
		return nil, fmt.Errorf("%w: 0 experiments", ErrTooFew)
	}
	k := len(scores[0])
	for i, row := range scores {
		if len(row) != k {
			return nil, fmt.Errorf("ranktest: block %d has %d scores, block 1 has %d", i+1, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) {
				return nil, fmt.Errorf("ranktest: block %d, treatment %d: score is NaN", i+1, j+1)
			}
		}
	}
	if n < 2 || k < 2 {
		return nil, fmt.Errorf("%w: %d experiments, %d policies", ErrTooFew, n, k)
	}
	ranks := Ranks(scores)
	mean := make([]float64, k)
	for _, row := range ranks {
		for j, r := range row {
			mean[j] += r
		}
	}
	sumSq := 0.0
	for j := range mean {
		mean[j] /= float64(n)
		sumSq += mean[j] * mean[j]
	}
	nf, kf := float64(n), float64(k)
	chi := 12 * nf / (kf * (kf + 1)) * (sumSq - kf*(kf+1)*(kf+1)/4)
	if chi < 0 && chi > -1e-9 {
		chi = 0 // rounding, when every rank is the middle one
	}
	fr := &Friedman{N: n, K: k, MeanRanks: mean, ChiSq: chi, DF: k - 1, DF1: k - 1, DF2: (k - 1) * (n - 1)}
	fr.P = distuv.ChiSquared{K: float64(fr.DF)}.Survival(chi)
	den := nf*(kf-1) - chi
	if den <= 1e-12*nf*kf {
		fr.FF, fr.PF = math.Inf(1), 0
	} else {
		fr.FF = (nf - 1) * chi / den
		fr.PF = distuv.F{D1: float64(fr.DF1), D2: float64(fr.DF2)}.Survival(fr.FF)
	}
	return fr, nil
}

// NemenyiQ returns q_alpha of the Nemenyi test for k treatments: the
// (1 - alpha) quantile of the studentized range of k independent standard
// normal variables (infinite degrees of freedom), divided by sqrt 2, as in
// Demšar's Table 5 (q_0.05 = 1.960, 2.343, 2.569 for k = 2, 3, 4). It
// panics unless k >= 2 and 0 < alpha < 1.
func NemenyiQ(k int, alpha float64) float64 {
	if k < 2 || !(alpha > 0 && alpha < 1) {
		panic(fmt.Sprintf("ranktest: NemenyiQ(%d, %g): want k >= 2 and 0 < alpha < 1", k, alpha))
	}
	target := 1 - alpha
	lo, hi := 0.0, 1.0
	for rangeCDF(k, hi) < target {
		lo, hi = hi, 2*hi
	}
	for range 100 {
		mid := (lo + hi) / 2
		if rangeCDF(k, mid) < target {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-10 {
			break
		}
	}
	return (lo + hi) / 2 / math.Sqrt2
}

// rangeCDF is P(W <= w) for W the range of k independent standard normal
// variables: k * integral of phi(z) (Phi(z) - Phi(z-w))^(k-1) dz, by
// Simpson's rule over [-10, 10+w], where the integrand is negligible
// outside.
func rangeCDF(k int, w float64) float64 {
	norm := distuv.UnitNormal
	a, b := -10.0, 10.0+w
	const steps = 4000 // even
	h := (b - a) / steps
	f := func(z float64) float64 {
		d := norm.CDF(z) - norm.CDF(z-w)
		if d <= 0 {
			return 0
		}
		return norm.Prob(z) * math.Pow(d, float64(k-1))
	}
	s := f(a) + f(b)
	for i := 1; i < steps; i++ {
		c := 4.0
		if i%2 == 0 {
			c = 2
		}
		s += c * f(a+float64(i)*h)
	}
	return float64(k) * s * h / 3
}

// CriticalDifference returns the Nemenyi test's critical difference for k
// treatments over n blocks at level alpha: q_alpha sqrt(k(k+1)/(6n)).
func CriticalDifference(k, n int, alpha float64) float64 {
	return NemenyiQ(k, alpha) * math.Sqrt(float64(k*(k+1))/(6*float64(n)))
}
