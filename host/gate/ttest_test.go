package gate

import (
	"math"
	"testing"
)

// t2Survival is P(T > t) for Student's t with 2 degrees of freedom, in
// closed form: F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
func t2Survival(t float64) float64 { return 0.5 - t/(2*math.Sqrt(2+t*t)) }

// t2Quantile inverts the same closed form: t = a sqrt(2 / (1 - a^2)) with
// a = 2F - 1.
func t2Quantile(f float64) float64 { a := 2*f - 1; return a * math.Sqrt(2/(1-a*a)) }

// tSurvivalNumeric integrates Student's t density from x to a far tail
// point with composite Simpson's rule: an independent computation for
// fractional degrees of freedom (Welch), sharing no code with gonum's
// incomplete-beta CDF.
func tSurvivalNumeric(x, nu float64) float64 {
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(nu*math.Pi)
	f := func(t float64) float64 { return c * math.Pow(1+t*t/nu, -(nu+1)/2) }
	// Beyond 1e4 the tail mass is about (1e4)^-nu, below 1e-20 for nu > 5.
	// Integrate in u = log(t - x + 1) to resolve the long tail with few
	// points.
	hi := math.Log(1e4 - x + 1)
	const n = 200000
	h := hi / n
	g := func(u float64) float64 { e := math.Exp(u); return f(x-1+e) * e }
	s := g(0) + g(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * g(float64(i)*h)
	}
	return s * h / 3
}

func TestPairedTKnown(t *testing.T) {
	// d = cur - base = (1, 2, 4): mean 7/3, variance 7/3, SE sqrt(7/9),
	// df 2, where the t distribution has a closed form.
	base := []float64{1, 2, 3}
	cur := []float64{2, 4, 7}
	e, err := PairedT(base, cur)
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(7.0 / 9)
	if !close(e.Delta, 7.0/3, 1e-12) || !close(e.SE, se, 1e-12) || e.DF != 2 || e.N != 3 {
		t.Fatalf("estimate %+v, want delta 7/3, SE %v, df 2, n 3", e, se)
	}
	// Tail-guarded SEs (TailGuard 2): the deviations from the mean are
	// -4/3, -1/3, +5/3, so the upper semi-deviation's sum is 25/9 and the
	// lower's 17/9; SE+ = sqrt(25/9 / (2*3)) and SE- = sqrt(17/9 / 6).
	// Both doubled exceed SE, so seLow = 2 sqrt(25/54) = 1.3608 and
	// seHigh = 2 sqrt(17/54) = 1.1222.
	seLow, seHigh := 2*math.Sqrt(25.0/54), 2*math.Sqrt(17.0/54)
	if !close(e.SELow, seLow, 1e-12) || !close(e.SEHigh, seHigh, 1e-12) {
		t.Fatalf("SELow %v, SEHigh %v; want %v, %v", e.SELow, e.SEHigh, seLow, seHigh)
	}
	for _, tc := range []struct {
		name string
		m    float64
	}{{"margin 0", 0}, {"margin 1", 1}, {"margin beyond delta", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := e.PAbove(tc.m), t2Survival((7.0/3-tc.m)/seLow); !close(got, want, 1e-12) {
				t.Errorf("PAbove(%v) = %v, want %v", tc.m, got, want)
			}
			if got, want := e.PBelow(tc.m), 1-t2Survival((7.0/3-tc.m)/seHigh); !close(got, want, 1e-12) {
				t.Errorf("PBelow(%v) = %v, want %v", tc.m, got, want)
			}
		})
	}
	lo, hi := e.CI(0.99)
	q := t2Quantile(0.995)
	if !close(lo, 7.0/3-q*seLow, 1e-9) || !close(hi, 7.0/3+q*seHigh, 1e-9) {
		t.Errorf("99%% CI [%v, %v], want [%v, %v]", lo, hi, 7.0/3-q*seLow, 7.0/3+q*seHigh)
	}
	// The interval's lower end and the worse test are one event: Lo > m
	// exactly when PAbove(m) < 0.005.
	for _, m := range []float64{lo - 1e-9, lo + 1e-9} {
		if (lo > m) != (e.PAbove(m) < 0.005) {
			t.Errorf("m %v: Lo > m is %v but PAbove(m) = %v", m, lo > m, e.PAbove(m))
		}
	}
}

func TestWelchKnown(t *testing.T) {
	// Hand-computed: means 2.5 and 7, variances 5/3 and 10, so
	// SE^2 = 5/12 + 2 and df = SE^4 / ((5/12)^2/3 + 2^2/4) = 5.5207877...
	base := []float64{1, 2, 3, 4}
	cur := []float64{3, 5, 7, 9, 11}
	e, err := Welch(base, cur)
	if err != nil {
		t.Fatal(err)
	}
	se2 := 5.0/12 + 2
	df := se2 * se2 / ((5.0/12)*(5.0/12)/3 + 1)
	if !close(e.Delta, 4.5, 1e-12) || !close(e.SE, math.Sqrt(se2), 1e-12) || !close(e.DF, df, 1e-12) || e.N != 4 {
		t.Fatalf("estimate %+v, want delta 4.5, SE %v, df %v, n 4", e, math.Sqrt(se2), df)
	}
	if !close(df, 5.520787746170677, 1e-12) {
		t.Fatalf("df %v, hand value 5.5207877", df)
	}
	// Simpson with 2e5 panels on a smooth integrand is accurate to far
	// better than 1e-9; gonum's regularized incomplete beta to ~1e-14.
	for _, m := range []float64{0, 2, 4.5, 6} {
		tt := (4.5 - m) / math.Sqrt(se2)
		want := tSurvivalNumeric(tt, df)
		if got := e.PAbove(m); !close(got, want, 1e-9) {
			t.Errorf("PAbove(%v) = %.12g, numeric integration gives %.12g", m, got, want)
		}
	}
}

func TestEstimateDegenerate(t *testing.T) {
	for _, tc := range []struct {
		name          string
		base, cur     []float64
		paired        bool
		m             float64
		above, below  float64
		wantErr       bool
		wantLo, wantH float64
	}{
		{name: "identical paired", base: []float64{1, 5, 9}, cur: []float64{1, 5, 9}, paired: true, m: 0, above: 1, below: 1},
		{name: "constant shift above margin", base: []float64{1, 5, 9}, cur: []float64{3, 7, 11}, paired: true, m: 1, above: 0, below: 1, wantLo: 2, wantH: 2},
		{name: "constant shift equal to margin", base: []float64{1, 5, 9}, cur: []float64{2, 6, 10}, paired: true, m: 1, above: 1, below: 1, wantLo: 1, wantH: 1},
		{name: "constant samples unpaired", base: []float64{2, 2}, cur: []float64{1, 1, 1}, m: 0.5, above: 1, below: 0, wantLo: -1, wantH: -1},
		{name: "one replication", base: []float64{1}, cur: []float64{2}, paired: true, wantErr: true},
		{name: "length mismatch", base: []float64{1, 2}, cur: []float64{2, 3, 4}, paired: true, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Welch
			if tc.paired {
				f = PairedT
			}
			e, err := f(tc.base, tc.cur)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, estimate %+v", e)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.PAbove(tc.m) != tc.above || e.PBelow(-tc.m) != tc.below {
				t.Errorf("PAbove(%v)=%v PBelow(%v)=%v, want %v and %v", tc.m, e.PAbove(tc.m), -tc.m, e.PBelow(-tc.m), tc.above, tc.below)
			}
			if lo, hi := e.CI(0.99); lo != tc.wantLo || hi != tc.wantH {
				t.Errorf("CI [%v, %v], want [%v, %v]", lo, hi, tc.wantLo, tc.wantH)
			}
		})
	}
}

func TestParseMargin(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  bool
	}{
		{"5%", 0.05, false}, {"0.05", 0.05, false}, {" 12.5 % ", 0.125, false}, {"0", 0, false},
		{"-1%", 0, true}, {"five", 0, true}, {"", 0, true}, {"NaN", 0, true}, {"Inf%", 0, true},
	} {
		got, err := ParseMargin(tc.in)
		if (err != nil) != tc.err || (!tc.err && !close(got, tc.want, 1e-15)) {
			t.Errorf("ParseMargin(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}
