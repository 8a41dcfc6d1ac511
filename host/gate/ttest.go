package gate

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is an estimated difference of means, current - baseline, with
// the standard error and degrees of freedom of its Student t reference
// distribution. Both tests of this package produce one.
type Estimate struct {
	Delta float64 // mean(current) - mean(baseline)
	SE    float64 // standard error of Delta; 0 when the data have no spread
	DF    float64 // degrees of freedom (fractional for Welch)
	N     int     // pairs (paired) or the smaller sample size (unpaired)
}

// errTooFew is returned when a sample is too small to estimate a variance.
var errTooFew = errors.New("fewer than 2 replications: no variance to test with")

// PairedT estimates the mean of the per-replication differences
// cur[r] - base[r] (the paired t-test's statistic): the replications must be
// the same ones in the same order, so that common random numbers make each
// pair share its reward streams.
func PairedT(base, cur []float64) (Estimate, error) {
	if len(base) != len(cur) {
		return Estimate{}, fmt.Errorf("paired test: %d baseline and %d current values", len(base), len(cur))
	}
	n := len(base)
	if n < 2 {
		return Estimate{}, errTooFew
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = cur[i] - base[i]
	}
	mean, v := stat.MeanVariance(d, nil)
	return Estimate{Delta: mean, SE: math.Sqrt(v / float64(n)), DF: float64(n - 1), N: n}, nil
}

// Welch estimates mean(cur) - mean(base) from independent samples without
// assuming equal variances (Welch's unpaired t-test, with the
// Welch-Satterthwaite degrees of freedom).
func Welch(base, cur []float64) (Estimate, error) {
	n1, n2 := len(base), len(cur)
	if n1 < 2 || n2 < 2 {
		return Estimate{}, errTooFew
	}
	m1, v1 := stat.MeanVariance(base, nil)
	m2, v2 := stat.MeanVariance(cur, nil)
	a, b := v1/float64(n1), v2/float64(n2)
	e := Estimate{Delta: m2 - m1, SE: math.Sqrt(a + b), N: min(n1, n2)}
	if a+b > 0 {
		e.DF = (a + b) * (a + b) / (a*a/float64(n1-1) + b*b/float64(n2-1))
	} else {
		e.DF = float64(n1 + n2 - 2)
	}
	return e, nil
}

func (e Estimate) dist() distuv.StudentsT {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}
}

// PAbove is the one-sided p-value of H0: delta <= m against H1: delta > m.
// With no spread at all (SE 0) the difference is known exactly: p is 0 when
// Delta > m and 1 otherwise.
func (e Estimate) PAbove(m float64) float64 {
	if e.SE == 0 {
		if e.Delta > m {
			return 0
		}
		return 1
	}
	return e.dist().Survival((e.Delta - m) / e.SE)
}

// PBelow is the one-sided p-value of H0: delta >= m against H1: delta < m.
func (e Estimate) PBelow(m float64) float64 {
	if e.SE == 0 {
		if e.Delta < m {
			return 0
		}
		return 1
	}
	return e.dist().CDF((e.Delta - m) / e.SE)
}

// CI is the two-sided confidence interval of delta at level conf (for
// example 0.99).
func (e Estimate) CI(conf float64) (lo, hi float64) {
	if e.SE == 0 {
		return e.Delta, e.Delta
	}
	h := e.dist().Quantile(1-(1-conf)/2) * e.SE
	return e.Delta - h, e.Delta + h
}
