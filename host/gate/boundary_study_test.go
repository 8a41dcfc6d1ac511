package gate

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The study behind TailGuard (docs/sequential-gate.md, "Skewed
// differences"):
//
//	go test ./host/gate -run TestBoundaryStudy -gate-study -v
//
// It measures, at the boundary of H0 (true mean difference = the margin,
// here margin 0 and differences centred on mean 0), how often each
// candidate test reports a false "worse" at alpha = 0.01, on real skewed
// regret differences resampled as in sequential_sim_test.go, and how
// often it finds real regressions (power). Candidates: the plain paired
// t-test (the gate before TailGuard), Hall's (1992) skewness-removing
// transformation, the bootstrap-t, the bootstrap of Hall's statistic, a
// sign-flip permutation test of the differences minus the margin, Student
// t with degrees of freedom from the sample's kurtosis, and the gate as it
// is (tail-guarded SE), fixed and sequential.
//
// Data, all real except the two synthetic checks:
//   - tuning: testdata/ts_inflation_pool.txt.gz (TS at inflation 1.05 to 2
//     against TS, 10,000 paired replications);
//   - validation, not used to choose TailGuard's factor until the last
//     step: testdata/gate_validation_diffs.txt.gz (TS at inflation 1.3 and
//     KL-UCB against TS on a three-armed Gaussian instance,
//     testdata/gate_validation.yaml, 10,000 replications);
//   - synthetic: normal differences and differences of two lognormals.
//
// Deterministic: every generator has a fixed seed. About 20 minutes on 2
// busy cores (the bootstrap candidates take most of it).
//
// The output of 2026-12-06 is in docs/sequential-gate.md.
var gateStudy = flag.Bool("gate-study", false, "run TestBoundaryStudy, the measurement behind the paired test's tail guard")

const (
	studyN     = 200  // replications per decision
	studyReps  = 2000 // decisions per setting: binomial SE 0.0022 at a rate of 0.01
	studyBoot  = 499  // resamples of the bootstrap and sign-flip candidates
	studyAlpha = 0.01
)

// readDiffs reads a gzip'd file of lines "label v1 v2 ..." ('#' lines are
// comments).
func readDiffs(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]float64{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fs := strings.Fields(sc.Text())
		for _, s := range fs[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out[fs[0]] = append(out[fs[0]], x)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// candidate is a one-sided test of H0: mean(d) <= m; p returns its p-value.
type candidate struct {
	name string
	p    func(d []float64, m float64, r *rand.Rand) float64
}

func plainT(d []float64, m float64) (t, se float64) {
	mean, v := stat.MeanVariance(d, nil)
	se = math.Sqrt(v / float64(len(d)))
	return (mean - m) / se, se
}

func pPlainT(d []float64, m float64, _ *rand.Rand) float64 {
	t, se := plainT(d, m)
	if se == 0 {
		return b2f(t <= 0)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(d) - 1)}.Survival(t)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// moments are the sample's skewness and excess kurtosis (moment forms).
func moments(d []float64) (skew, exkurt float64) {
	n := float64(len(d))
	mean := stat.Mean(d, nil)
	var m2, m3, m4 float64
	for _, x := range d {
		e := x - mean
		m2 += e * e
		m3 += e * e * e
		m4 += e * e * e * e
	}
	m2, m3, m4 = m2/n, m3/n, m4/n
	if m2 == 0 {
		return 0, 0
	}
	return m3 / math.Pow(m2, 1.5), m4/(m2*m2) - 3
}

// hall is Hall's (1992) monotone transformation of a t statistic with
// sample skewness g over n values.
func hall(t, g float64, n int) float64 {
	a := g / math.Sqrt(float64(n))
	return t + a/6 + a*t*t/3 + a*a*t*t*t/27
}

func pHall(d []float64, m float64, _ *rand.Rand) float64 {
	t, se := plainT(d, m)
	if se == 0 {
		return b2f(t <= 0)
	}
	g, _ := moments(d)
	return stdNormal.Survival(hall(t, g, len(d)))
}

// bootstrapT is the bootstrap-t p-value (of Hall's statistic with useHall).
func bootstrapT(useHall bool) func(d []float64, m float64, r *rand.Rand) float64 {
	return func(d []float64, m float64, r *rand.Rand) float64 {
		t, se := plainT(d, m)
		if se == 0 {
			return b2f(t <= 0)
		}
		n := len(d)
		mean := stat.Mean(d, nil)
		obs := t
		if useHall {
			g, _ := moments(d)
			obs = hall(t, g, n)
		}
		ge := 0
		buf := make([]float64, n)
		for range studyBoot {
			for i := range buf {
				buf[i] = d[r.IntN(n)]
			}
			tb, seb := plainT(buf, mean)
			if seb == 0 {
				tb = 0
			} else if useHall {
				g, _ := moments(buf)
				tb = hall(tb, g, n)
			}
			if tb >= obs {
				ge++
			}
		}
		return float64(ge+1) / float64(studyBoot+1)
	}
}

// pSignFlip is the sign-flip permutation test of the mean of d - m.
func pSignFlip(d []float64, m float64, r *rand.Rand) float64 {
	obs := 0.0
	for _, x := range d {
		obs += x - m
	}
	ge := 0
	for range studyBoot {
		s := 0.0
		for _, x := range d {
			if r.Uint64()&1 == 1 {
				s += x - m
			} else {
				s -= x - m
			}
		}
		if s >= obs {
			ge++
		}
	}
	return float64(ge+1) / float64(studyBoot+1)
}

// pKurtosisDF is Student's t with the degrees of freedom of a variance
// estimate under the sample's excess kurtosis k: 2 / (k/n + 2/(n-1)).
func pKurtosisDF(d []float64, m float64, _ *rand.Rand) float64 {
	t, se := plainT(d, m)
	if se == 0 {
		return b2f(t <= 0)
	}
	_, k := moments(d)
	n := float64(len(d))
	nu := 2 / (max(k, 0)/n + 2/(n-1))
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Survival(t)
}

// pGuarded is the gate's own paired test (PairedT with TailGuard).
func pGuarded(d []float64, m float64, _ *rand.Rand) float64 {
	e, err := PairedT(make([]float64, len(d)), d)
	if err != nil {
		panic(err)
	}
	return e.PAbove(m)
}

// studySetting draws one decision's paired values: Base and Cur, with the
// margin as a fraction of the baseline mean.
type studySetting struct {
	name   string
	null   bool // H0 holds at its boundary: every "worse" is a false alarm
	margin float64
	draw   func(r *rand.Rand) Pair
}

// resample draws n pairs (b_j, b_j + d_j + shift) of one random index j
// each: the real differences with their real baseline values.
func resample(base, diff []float64, shift float64) func(r *rand.Rand) Pair {
	return func(r *rand.Rand) Pair {
		p := Pair{Base: make([]float64, studyN), Cur: make([]float64, studyN)}
		for i := range p.Base {
			j := r.IntN(len(diff))
			p.Base[i], p.Cur[i] = base[j], base[j]+diff[j]+shift
		}
		return p
	}
}

func studySettings(t *testing.T) []studySetting {
	p := readPool(t)
	v := readDiffs(t, "testdata/gate_validation_diffs.txt.gz")
	var out []studySetting
	add := func(pool, label string, base, diff []float64) {
		rel := stat.Mean(diff, nil) / stat.Mean(base, nil)
		kind := "a regression beyond"
		if rel <= 0.05 {
			kind = "a change within" // every "worse" is a false alarm too
		}
		out = append(out,
			studySetting{fmt.Sprintf("%s %s, boundary", pool, label), true, 0, resample(base, diff, -stat.Mean(diff, nil))},
			studySetting{fmt.Sprintf("%s %s, %+.1f%%: %s the margin 5%%", pool, label, 100*rel, kind), rel <= 0.05, 0.05, resample(base, diff, 0)})
	}
	for _, infl := range []string{"1.05", "1.1", "1.2", "1.5", "2"} {
		d := make([]float64, len(p.values[infl]))
		for j := range d {
			d[j] = p.values[infl][j] - p.values["1"][j]
		}
		add("TS pool", infl, p.values["1"], d)
	}
	for _, label := range []string{"ts1.3", "klucb"} {
		add("validation", label, v["base"], v[label])
	}
	synth := func(name string, null bool, f func(r *rand.Rand) (b, c float64)) {
		out = append(out, studySetting{name, null, 0.05, func(r *rand.Rand) Pair {
			p := Pair{Base: make([]float64, studyN), Cur: make([]float64, studyN)}
			for i := range p.Base {
				p.Base[i], p.Cur[i] = f(r)
			}
			return p
		}})
	}
	// Synthetic, margin 5% of a baseline mean of 100 (5), at the boundary
	// (delta = 5) and at a regression about 3 standard errors beyond it
	// (the differences' SE is 0.71 for the normal ones, 2.2 for the
	// lognormal ones).
	for _, c := range []struct{ normal, lognormal float64 }{{5, 5}, {7, 12}} {
		synth(fmt.Sprintf("normal, delta %g vs margin 5", c.normal), c.normal == 5, func(r *rand.Rand) (float64, float64) {
			b := 100 + 10*r.NormFloat64()
			return b, b + c.normal + 10*r.NormFloat64()
		})
		synth(fmt.Sprintf("lognormal - lognormal, delta %g vs margin 5", c.lognormal), c.lognormal == 5, func(r *rand.Rand) (float64, float64) {
			b := 100 + 10*r.NormFloat64()
			return b, b + c.lognormal + 10*(lognormal(r, 1)-lognormal(r, 1))
		})
	}
	return out
}

func TestBoundaryStudy(t *testing.T) {
	if !*gateStudy {
		t.Skip("the study behind the paired test's tail guard (minutes): run with -gate-study")
	}
	cands := []candidate{
		{"t-test (before)", pPlainT},
		{"Hall transform", pHall},
		{"bootstrap-t", bootstrapT(false)},
		{"bootstrap Hall", bootstrapT(true)},
		{"sign-flip", pSignFlip},
		{"kurtosis df", pKurtosisDF},
		{"tail-guarded t", pGuarded},
	}
	fixed := Options{Metric: "regret", Alpha: studyAlpha}
	seq := fixed
	seq.Looks = 5
	t.Logf("alarm rate of a \"worse\" verdict over %d decisions of n = %d (alpha %g); in parentheses the binomial SE", studyReps, studyN, studyAlpha)
	for _, s := range studySettings(t) {
		var cells []string
		for ci, c := range cands {
			r := rand.New(rand.NewPCG(2026, 1206)) // the same data for every candidate
			rb := rand.New(rand.NewPCG(7, uint64(ci)))
			hits := 0
			for range studyReps {
				p := s.draw(r)
				d := make([]float64, studyN)
				for i := range d {
					d[i] = p.Cur[i] - p.Base[i]
				}
				if c.p(d, s.margin*math.Abs(stat.Mean(p.Base, nil)), rb) < studyAlpha {
					hits++
				}
			}
			cells = append(cells, rateCell(c.name, hits))
		}
		// The gate itself, fixed and sequential, through Test and
		// SequentialTest (with their same/better stops).
		r := rand.New(rand.NewPCG(2026, 1206))
		fixedHits, seqHits := 0, 0
		for range studyReps {
			p := s.draw(r)
			fixed.Margin, seq.Margin = s.margin, s.margin
			if Test([]Pair{p}, true, fixed).Rows[0].Verdict == Worse {
				fixedHits++
			}
			fam, err := SequentialTest([]Pair{p}, seq, studyN)
			if err != nil {
				t.Fatal(err)
			}
			if fam.Rows[0].Verdict == Worse {
				seqHits++
			}
		}
		cells = append(cells, rateCell("gate fixed", fixedHits), rateCell("gate sequential", seqHits))
		kind := "power"
		if s.null {
			kind = "false alarms"
		}
		t.Logf("%s (%s): %s", s.name, kind, strings.Join(cells, "; "))
		if s.null {
			for _, h := range []struct {
				what string
				n    int
			}{{"fixed", fixedHits}, {"sequential", seqHits}} {
				if rate := float64(h.n) / studyReps; rate > studyAlpha+0.005 {
					t.Errorf("%s: the %s gate's false-alarm rate %.4f > alpha + 0.005", s.name, h.what, rate)
				}
			}
		}
	}
}

func rateCell(name string, hits int) string {
	p := float64(hits) / studyReps
	return fmt.Sprintf("%s %.4f (%.4f)", name, p, math.Sqrt(max(p*(1-p), 1e-9)/studyReps))
}
