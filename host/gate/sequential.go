package gate

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Pending is the verdict of a policy at an interim look of a sequential
// gate that is not yet decided: it needs the next group of replications.
// A finished sequential gate never reports it (undecided at the last look
// is Inconclusive).
const Pending Verdict = "pending"

// LookSizes returns the cumulative replications at each of the looks of a
// sequential gate over runs replications: look k (1-based) holds the first
// k*runs/looks, the last all of them. It refuses a plan whose first look
// would hold fewer than 2 replications (no variance to test with).
func LookSizes(runs, looks int) ([]int, error) {
	if looks < 1 {
		return nil, fmt.Errorf("looks %d: want at least 1", looks)
	}
	if runs/looks < 2 {
		return nil, fmt.Errorf("%d looks over %d replications: the first look would hold %d; want at least 2 (use fewer looks or more runs)", looks, runs, runs/looks)
	}
	s := make([]int, looks)
	for k := range s {
		s[k] = (k + 1) * runs / looks
	}
	return s, nil
}

// seqDesign is a sequential gate's plan and boundaries.
type seqDesign struct {
	sizes  []int     // cumulative replications at each look
	worse  []float64 // nominal one-sided level of the worse/better tests at each look
	ci     []float64 // nominal one-sided level of each side of the repeated CI
	family int       // comparisons sharing alpha (Bonferroni)
}

// newSeqDesign computes the boundaries of a sequential gate of looks looks
// over runs replications with family comparisons sharing alpha.
func newSeqDesign(runs, looks, family int, alpha float64) (*seqDesign, error) {
	sizes, err := LookSizes(runs, looks)
	if err != nil {
		return nil, err
	}
	t := make([]float64, looks)
	for k, n := range sizes {
		t[k] = float64(n) / float64(runs)
	}
	m := float64(max(family, 1))
	cw, err := cachedBoundaries(alpha/m, t)
	if err != nil {
		return nil, err
	}
	cs, err := cachedBoundaries(alpha/(2*m), t)
	if err != nil {
		return nil, err
	}
	d := &seqDesign{sizes: sizes, family: family, worse: make([]float64, looks), ci: make([]float64, looks)}
	for k := range t {
		d.worse[k] = stdNormal.Survival(cw[k])
		d.ci[k] = stdNormal.Survival(cs[k])
	}
	return d, nil
}

// SequentialTest is Test for a sequential gate (Options.Looks > 0, paired
// only; see the package doc). Each pair's Cur holds the first n values of
// a sequential run, n one of LookSizes(runs, opt.Looks) (or more), and Base
// the baseline's values of the same replications, at least n of them and
// typically all runs. For each pair it replays the looks that Cur's values
// reach, in order, and stops at the first that decides: at look k, on the
// first n_k pairs, worse when the paired t-test's one-sided p-value of
// H0: delta <= m is below the look's nominal level, better likewise, same
// when the look's repeated confidence interval lies within [-m, m]. The
// nominal levels come from O'Brien–Fleming-type Lan–DeMets spending of
// alpha/F for the worse and better tests and of alpha/(2F) for each side of
// the interval, F being the number of pairs tested (Bonferroni), so the
// probability of any false regression over every look and policy is at
// most alpha. m = opt.Margin * |mean(Base)| over all of Base. A pair not
// decided at the last look is Inconclusive; one whose values stop before
// it, Pending. The rows' PWorse and PBetter are the nominal p-values at the
// deciding look, Lo and Hi its repeated confidence interval, Look the look
// (1-based) and Estimate.N the replications used.
func SequentialTest(pairs []Pair, opt Options, runs int) (Family, error) {
	fam := Family{Rows: make([]Row, len(pairs))}
	for _, p := range pairs {
		if len(p.Base) >= 2 && len(p.Cur) >= 2 {
			fam.Comparisons++
		}
	}
	d, err := newSeqDesign(runs, opt.Looks, fam.Comparisons, opt.Alpha)
	if err != nil {
		return Family{}, err
	}
	for i, p := range pairs {
		fam.Rows[i] = d.row(p, opt.Margin)
	}
	return fam, nil
}

// row replays the looks of one pair.
func (d *seqDesign) row(p Pair, margin float64) Row {
	row := Row{Verdict: Inconclusive, PWorse: math.NaN(), PBetter: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	row.Base, row.Cur = summarize(p.Base), summarize(p.Cur)
	if len(p.Base) < 2 || len(p.Cur) < 2 {
		row.Note = errTooFew.Error()
		return row
	}
	if len(p.Cur) > len(p.Base) {
		row.Note = fmt.Sprintf("paired test: %d baseline and %d current values", len(p.Base), len(p.Cur))
		return row
	}
	m := margin * math.Abs(stat.Mean(p.Base, nil))
	row.Margin = m
	row.Verdict = Pending
	for k, n := range d.sizes {
		if n > len(p.Cur) {
			break
		}
		est, err := PairedT(p.Base[:n], p.Cur[:n])
		if err != nil {
			row.Verdict, row.Note = Inconclusive, err.Error()
			return row
		}
		row.Estimate, row.Look = est, k+1
		row.Base, row.Cur = summarize(p.Base[:n]), summarize(p.Cur[:n])
		row.PWorse, row.PBetter = est.PAbove(m), est.PBelow(-m)
		row.Lo, row.Hi = est.CI(1 - 2*d.ci[k])
		switch {
		case row.PWorse < d.worse[k]:
			row.Verdict = Worse
		case row.PBetter < d.worse[k]:
			row.Verdict = Better
		case row.Lo >= -m && row.Hi <= m:
			row.Verdict = Same
		case k == len(d.sizes)-1:
			row.Verdict = Inconclusive
		}
		if row.Verdict != Pending {
			break
		}
	}
	return row
}
