package numfmt

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestPM(t *testing.T) {
	for _, c := range []struct {
		mean, se float64
		want     string
	}{
		{2.5712, 0.2049, "2.57 ± 0.20"},
		{9.4321, 1.99, "9.43 ± 1.99"},
		{910.19, 114.04, "910.19 ± 114.04"},
		{0.2812, 0.0042, "0.2812 ± 0.0042"}, // was 0.28 ± 0.00
		{1.98901, 0.0033, "1.9890 ± 0.0033"},
		{2.8723, 0.0512, "2.872 ± 0.051"},
		{0.38, 0.000049, "0.380000 ± 0.000049"},
		{3, 0, "3.00 ± 0"},
		{0, 0, "0 ± 0"},
		{5, math.NaN(), "5.00"},
		{math.NaN(), 1, "NaN ± 1.00"},
		{math.Inf(1), 1, "Inf ± 1.00"},
		{1, math.Inf(1), "1.00 ± Inf"},
		{1.23456789e300, 2.3e298, "1.235e+300 ± 2.3e+298"},
		{-1.5e7, 12, "-1.500000e+07 ± 1.2e+01"},
		{0.5, 1e-9, "5.000000e-01 ± 1.0e-09"},
		{1e-9, 0, "1e-09 ± 0"},
		{4.2e-12, 1.1e-12, "4.2e-12 ± 1.1e-12"},
	} {
		if got := PM(c.mean, c.se); got != c.want {
			t.Errorf("PM(%v, %v) = %q, want %q", c.mean, c.se, got, c.want)
		}
	}
}

// TestPMNeverHidesSE: whatever the values, a nonzero SE never reads as
// zero, the SE shows at least two significant digits, the mean is written
// to the SE's decimal place (same number of decimals), and the cell stays
// short.
func TestPMNeverHidesSE(t *testing.T) {
	for _, se := range []float64{1e-300, 3e-12, 1e-7, 4.9e-6, 0.00042, 0.0049, 0.0099, 0.01, 0.05, 0.099, 0.1, 0.999, 1, 17, 999, 1e5, 999999, 1e6, 3e9, 1e300} {
		for _, mean := range []float64{0, 0.5, -3.25, 1234.5678, 5e5, 2e6, -7e12, 1e300, -1e-300} {
			s := PM(mean, se)
			m, e, ok := strings.Cut(s, " ± ")
			if !ok {
				t.Fatalf("PM(%v, %v) = %q: no ±", mean, se, s)
			}
			if v, err := strconv.ParseFloat(e, 64); err != nil || v == 0 {
				t.Errorf("PM(%v, %v) = %q: the SE reads %q", mean, se, s, e)
			} else if math.Abs(v-se) > 0.051*se {
				t.Errorf("PM(%v, %v) = %q: the SE reads %v, more than 5%% off", mean, se, s, v)
			}
			if v, err := strconv.ParseFloat(m, 64); err != nil || math.Abs(v-mean) > math.Max(se, 1e-6*math.Abs(mean)) {
				t.Errorf("PM(%v, %v) = %q: the mean reads %q", mean, se, s, m)
			}
			if !strings.Contains(e, "e") && !strings.Contains(m, "e") {
				_, md, _ := strings.Cut(m, ".")
				_, ed, _ := strings.Cut(e, ".")
				if len(md) != len(ed) {
					t.Errorf("PM(%v, %v) = %q: mean and SE at different decimal places", mean, se, s)
				}
			}
			if len(s) > 32 {
				t.Errorf("PM(%v, %v) = %q: %d characters", mean, se, s, len(s))
			}
		}
	}
}

func TestNum(t *testing.T) {
	for _, c := range []struct {
		x           float64
		num, signed string
	}{
		{0, "0", "0"},
		{3.14159, "3.14", "+3.14"},
		{-3.14159, "-3.14", "-3.14"},
		{0.0012345, "0.00123", "+0.00123"},
		{1e300, "1e+300", "+1e+300"},
		{-123456789, "-1.23e+08", "-1.23e+08"},
		{999999.994, "999999.99", "+999999.99"},
		{math.NaN(), "NaN", "NaN"},
		{math.Inf(1), "Inf", "+Inf"},
		{math.Inf(-1), "-Inf", "-Inf"},
	} {
		if got := Num(c.x); got != c.num {
			t.Errorf("Num(%v) = %q, want %q", c.x, got, c.num)
		}
		if got := Signed(c.x); got != c.signed {
			t.Errorf("Signed(%v) = %q, want %q", c.x, got, c.signed)
		}
	}
}

// TestAtShared: a delta and its CI bounds written at one precision share
// their notation and decimals.
func TestAtShared(t *testing.T) {
	for _, c := range []struct {
		se, maxAbs float64
		xs         []float64
		want       []string
	}{
		{0.0031, 0.02, []float64{-0.0123, -0.0203, -0.0043}, []string{"-0.0123", "-0.0203", "-0.0043"}},
		{0.31, 2.5, []float64{1.85, 1.39, 2.32}, []string{"+1.85", "+1.39", "+2.32"}},
		{2e297, 5e299, []float64{4.1e299, 3.6e299, 5e299}, []string{"+4.100e+299", "+3.600e+299", "+5.000e+299"}},
		{0, 0, []float64{0, 0, 0}, []string{"+0.00", "+0.00", "+0.00"}},
	} {
		p := At(c.se, c.maxAbs)
		for i, x := range c.xs {
			if got := p.Format(x, true); got != c.want[i] {
				t.Errorf("At(%v, %v).Format(%v) = %q, want %q", c.se, c.maxAbs, x, got, c.want[i])
			}
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		frac float64
		dec  int
		sign bool
		want string
	}{
		{0.334, 0, false, "33%"},
		{0.1234, 1, true, "+12.3%"},
		{-0.05, 1, true, "-5.0%"},
		{1e300, 1, true, "+1e+302%"},
		{math.Inf(1), 0, false, "Inf%"},
	} {
		if got := Percent(c.frac, c.dec, c.sign); got != c.want {
			t.Errorf("Percent(%v, %d, %v) = %q, want %q", c.frac, c.dec, c.sign, got, c.want)
		}
	}
}

func TestLevelAndP(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Level(0.99), "99%"}, {Level(0.05), "5%"}, {Level(0.025), "2.5%"}, {Level(0.999), "99.9%"}, {Level(0.9999), "99.99%"}, {Level(0), "0%"}, {Level(1), "100%"},
		{P(0.0016), "0.0016"}, {P(1), "1"}, {P(0.057), "0.057"}, {P(0.5), "0.5"}, {P(0.12345), "0.12"}, {P(9.99e-5), "<1e-4"}, {P(1e-4), "0.0001"}, {P(0), "<1e-4"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
