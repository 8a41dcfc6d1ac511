// Package numfmt formats the numbers of bench's tables, the same way in
// every renderer (text, Markdown, HTML; reports, comparisons, gate
// verdicts), so that one value never reads differently in two places.
//
// The rules:
//
//   - A mean with its standard error (PM) shows the SE to two
//     significant digits, and the mean to the same decimal place, with at
//     least two decimals: 2.57 ± 0.20, 0.2800 ± 0.0033. An SE that is
//     not zero never reads "0.00"; an SE that is zero reads "0".
//   - A number too large or too small for that (a magnitude of Large or
//     more, or more than MaxDecimals decimals) is written in scientific
//     notation, the mean still to the SE's second significant digit:
//     1.235e+300 ± 2.3e+298. A table cell stays a few characters wide
//     whatever the input.
//   - A lone number (Num) has two decimals between 0.01 and Large, and
//     three significant digits (%g) outside that range.
//   - NaN and infinities are written as such.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Large is the magnitude from which numbers are written in scientific
// notation.
const Large = 1e6

// MaxDecimals is the most decimals a fixed-point number gets; a number
// that would need more is written in scientific notation.
const MaxDecimals = 6

// maxMantissa bounds the decimals of a mantissa in scientific notation.
const maxMantissa = 6

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// special writes a non-finite x.
func special(x float64, sign bool) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case x > 0 && sign:
		return "+Inf"
	case x > 0:
		return "Inf"
	}
	return "-Inf"
}

// exp10 is the exponent of x's leading digit (x > 0).
func exp10(x float64) int {
	e := int(math.Floor(math.Log10(x)))
	// Log10 can land just below an exact power of ten.
	if math.Pow(10, float64(e+1)) <= x {
		e++
	}
	return e
}

// Prec is the precision at which a value with a given standard error is
// written: fixed point with Decimals decimals, or scientific notation down
// to the decimal exponent Last (the SE's second significant digit).
type Prec struct {
	Sci      bool
	Decimals int // fixed point: decimals
	Last     int // scientific: the exponent of the last digit shown
}

// At returns the precision of a value with standard error se whose
// magnitude (together with the other values written at this precision) is
// at most maxAbs. A zero, negative or non-finite se gives two decimals.
func At(se, maxAbs float64) Prec {
	if !finite(maxAbs) {
		maxAbs = 0 // written as NaN or Inf whatever the precision
	}
	if !(se > 0) || !finite(se) {
		if math.Abs(maxAbs) >= Large {
			return Prec{Sci: true, Last: exp10(math.Abs(maxAbs)) - 2}
		}
		return Prec{Decimals: 2}
	}
	e := exp10(se)
	d := max(2, 1-e)
	if d > MaxDecimals || se >= Large || math.Abs(maxAbs) >= Large {
		return Prec{Sci: true, Last: e - 1}
	}
	return Prec{Decimals: d}
}

// Format writes x at precision p; sign adds a + to a positive x.
func (p Prec) Format(x float64, sign bool) string {
	if !finite(x) {
		return special(x, sign)
	}
	var s string
	if !p.Sci {
		s = strconv.FormatFloat(x, 'f', p.Decimals, 64)
	} else {
		d := 0
		if x != 0 {
			d = exp10(math.Abs(x)) - p.Last
		}
		s = strconv.FormatFloat(x, 'e', min(max(d, 0), maxMantissa), 64)
	}
	if sign && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// SE writes a standard error: two significant digits (at the decimals of
// its precision), "0" when it is zero.
func SE(se float64) string {
	switch {
	case !finite(se):
		return special(se, false)
	case se == 0:
		return "0"
	}
	p := At(se, se)
	if p.Sci {
		return strconv.FormatFloat(se, 'e', 1, 64)
	}
	return p.Format(se, false)
}

// PM writes a mean and its standard error as "mean ± se" (see the package
// doc). A NaN se (unknown) writes the mean alone.
func PM(mean, se float64) string {
	switch {
	case math.IsNaN(se):
		return Num(mean)
	case se == 0 || !finite(se):
		return Num(mean) + " ± " + SE(se)
	}
	p := At(se, mean)
	if p.Sci {
		return p.Format(mean, false) + " ± " + strconv.FormatFloat(se, 'e', 1, 64)
	}
	return p.Format(mean, false) + " ± " + SE(se)
}

// Num writes a lone number: two decimals for magnitudes in [0.01, Large),
// three significant digits otherwise; 0 is "0".
func Num(x float64) string { return num(x, false) }

// Signed writes x as Num does, with a + when positive.
func Signed(x float64) string { return num(x, true) }

func num(x float64, sign bool) string {
	var s string
	switch a := math.Abs(x); {
	case !finite(x):
		return special(x, sign)
	case x == 0:
		return "0"
	case a >= 0.01 && a < Large:
		s = strconv.FormatFloat(x, 'f', 2, 64)
	default:
		s = strconv.FormatFloat(x, 'g', 3, 64)
	}
	if sign && x > 0 {
		s = "+" + s
	}
	return s
}

// Percent writes frac (0.25 is 25%) as a percentage with the given
// decimals, compactly beyond Large percent; sign adds a + when positive.
func Percent(frac float64, decimals int, sign bool) string {
	x := 100 * frac
	var s string
	switch {
	case !finite(x):
		return special(x, sign) + "%"
	case math.Abs(x) >= Large:
		s = strconv.FormatFloat(x, 'g', 3, 64)
	default:
		s = strconv.FormatFloat(x, 'f', decimals, 64)
	}
	if sign && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

// Level writes a probability set by the user (a confidence level, a
// significance level or a margin; 0.99 is 99%) as a percentage with as
// few decimals as it needs, at most two: "99%", "5%", "2.5%".
func Level(frac float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(100*frac, 'f', 2, 64), "0"), ".") + "%"
}

// P writes a p-value as every table shows it: two significant digits,
// "<1e-4" below 1e-4.
func P(p float64) string {
	if p < 1e-4 {
		return "<1e-4"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}
