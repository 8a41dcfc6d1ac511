package ranktest_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/host/ranktest"
)

// demsarAUC is Table 6 of Demšar (2006): the AUC of C4.5, C4.5+m,
// C4.5+cf and C4.5+m+cf on 14 data sets (higher is better). The table
// prints wine's last two as 0.975 but ranks C4.5+cf second and C4.5+m+cf
// third there (its numbers were rounded for print): 0.97501 keeps that
// order, and the other tie (all four at 1.000) shares rank 2.5.
var demsarAUC = [][]float64{
	{0.763, 0.768, 0.771, 0.798}, {0.599, 0.591, 0.590, 0.569},
	{0.954, 0.971, 0.968, 0.967}, {0.628, 0.661, 0.654, 0.657},
	{0.882, 0.888, 0.886, 0.898}, {0.936, 0.931, 0.916, 0.931},
	{0.661, 0.668, 0.609, 0.685}, {0.583, 0.583, 0.563, 0.625},
	{0.775, 0.838, 0.866, 0.875}, {1.000, 1.000, 1.000, 1.000},
	{0.940, 0.962, 0.965, 0.962}, {0.619, 0.666, 0.614, 0.669},
	{0.972, 0.981, 0.97501, 0.975}, {0.957, 0.978, 0.946, 0.970},
}

// TestDemsarExample: the worked example of Demšar (2006) §3.2.2: mean
// ranks 3.143, 2.000, 2.893, 1.964 (ties averaged), chi2_F = 9.28,
// F_F = 3.69 (significant at 0.05: the critical F(3, 39) is 2.85), and
// CD = 2.569 sqrt(4*5/(6*14)) = 1.25 at alpha 0.05.
func TestDemsarExample(t *testing.T) {
	loss := make([][]float64, len(demsarAUC)) // rank 1 = highest AUC
	for i, row := range demsarAUC {
		for _, v := range row {
			loss[i] = append(loss[i], -v)
		}
	}
	fr, err := ranktest.FriedmanTest(loss)
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{3.143, 2.000, 2.893, 1.964} {
		if math.Abs(fr.MeanRanks[j]-want) > 0.0005 {
			t.Errorf("mean rank %d = %.4f, want %.3f", j+1, fr.MeanRanks[j], want)
		}
	}
	if math.Abs(fr.ChiSq-9.28) > 0.005 || fr.DF != 3 {
		t.Errorf("chi2_F = %.4f on %d df, want 9.28 on 3", fr.ChiSq, fr.DF)
	}
	if math.Abs(fr.FF-3.69) > 0.005 || fr.DF1 != 3 || fr.DF2 != 39 {
		t.Errorf("F_F = %.4f on (%d, %d) df, want 3.69 on (3, 39)", fr.FF, fr.DF1, fr.DF2)
	}
	if !(fr.PF < 0.05 && fr.PF > 0.01) || !(fr.P < 0.05 && fr.P > 0.01) {
		t.Errorf("p = %.4f (chi2), %.4f (F): want both in (0.01, 0.05)", fr.P, fr.PF)
	}
	if cd := ranktest.CriticalDifference(4, 14, 0.05); math.Abs(cd-1.25) > 0.005 {
		t.Errorf("CD = %.4f, want 1.25", cd)
	}
}

// TestNemenyiQ: q_alpha against Demšar's Table 5(a), for alpha 0.05 and
// 0.10 and k = 2..10.
func TestNemenyiQ(t *testing.T) {
	table := map[float64][]float64{ // k = 2, 3, ..., 10
		0.05: {1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164},
		0.10: {1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920},
	}
	for alpha, qs := range table {
		for i, want := range qs {
			k := i + 2
			if got := ranktest.NemenyiQ(k, alpha); math.Abs(got-want) > 0.0015 {
				t.Errorf("q_%g(k=%d) = %.4f, want %.3f", alpha, k, got, want)
			}
		}
	}
	// k = 2 is the two-sided normal quantile at any level.
	if got := ranktest.NemenyiQ(2, 0.01); math.Abs(got-2.5758) > 0.0005 {
		t.Errorf("q_0.01(k=2) = %.4f, want 2.576", got)
	}
	// Larger k, smaller alpha: larger q.
	if !(ranktest.NemenyiQ(24, 0.05) > ranktest.NemenyiQ(10, 0.05)) || !(ranktest.NemenyiQ(5, 0.01) > ranktest.NemenyiQ(5, 0.05)) {
		t.Error("q_alpha does not grow with k and with 1-alpha")
	}
}

// TestRanksTies: tied scores share the average of the ranks they span.
func TestRanksTies(t *testing.T) {
	for _, c := range []struct {
		row, want []float64
	}{
		{[]float64{3, 1, 2}, []float64{3, 1, 2}},
		{[]float64{1, 1, 2}, []float64{1.5, 1.5, 3}},
		{[]float64{5, 5, 5, 5}, []float64{2.5, 2.5, 2.5, 2.5}},
		{[]float64{2, 9, 2, 0, 9}, []float64{2.5, 4.5, 2.5, 1, 4.5}},
	} {
		if got := ranktest.Ranks([][]float64{c.row})[0]; !slices.Equal(got, c.want) {
			t.Errorf("Ranks(%v) = %v, want %v", c.row, got, c.want)
		}
	}
}

// TestFriedmanByHand: three experiments, three policies, ranks computed by
// hand. Ranks (A, B, C): (1, 2, 3), (1, 3, 2), (1.5, 1.5, 3); mean ranks
// 7/6, 13/6, 16/6; chi2 = 12*3/(3*4) [(49+169+256)/36 - 12] =
// 3 (474/36 - 12) = 3.5; F_F = 2*3.5/(3*2 - 3.5) = 2.8.
func TestFriedmanByHand(t *testing.T) {
	fr, err := ranktest.FriedmanTest([][]float64{{10, 20, 30}, {1, 9, 5}, {4, 4, 7}})
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{7.0 / 6, 13.0 / 6, 16.0 / 6} {
		if math.Abs(fr.MeanRanks[j]-want) > 1e-12 {
			t.Errorf("mean rank %d = %v, want %v", j, fr.MeanRanks[j], want)
		}
	}
	if math.Abs(fr.ChiSq-3.5) > 1e-12 || math.Abs(fr.FF-2.8) > 1e-12 {
		t.Errorf("chi2 = %v, F_F = %v; want 3.5, 2.8", fr.ChiSq, fr.FF)
	}
	if want := math.Exp(-3.5 / 2); math.Abs(fr.P-want) > 1e-9 { // chi2 on 2 df: exp(-x/2)
		t.Errorf("p = %v, want %v", fr.P, want)
	}
	// Every block agrees: F_F is infinite, p 0. Every block ties: chi2 0, p 1.
	fr, err = ranktest.FriedmanTest([][]float64{{1, 2, 3}, {1, 2, 3}})
	if err != nil || !math.IsInf(fr.FF, 1) || fr.PF != 0 || math.Abs(fr.ChiSq-4) > 1e-12 {
		t.Errorf("perfect agreement: %+v %v", fr, err)
	}
	fr, err = ranktest.FriedmanTest([][]float64{{1, 1}, {2, 2}})
	if err != nil || fr.ChiSq != 0 || fr.P != 1 || fr.FF != 0 || fr.PF != 1 {
		t.Errorf("all tied: %+v %v", fr, err)
	}
}

func TestFriedmanTooFew(t *testing.T) {
	for _, scores := range [][][]float64{nil, {{1, 2, 3}}, {{1}, {2}, {3}}} {
		if _, err := ranktest.FriedmanTest(scores); !errors.Is(err, ranktest.ErrTooFew) {
			t.Errorf("FriedmanTest(%v): err = %v, want ErrTooFew", scores, err)
		}
	}
	if _, err := ranktest.FriedmanTest([][]float64{{1, 2}, {1}}); err == nil {
		t.Error("ragged blocks accepted")
	}
	if _, err := ranktest.FriedmanTest([][]float64{{1, math.NaN()}, {1, 2}}); err == nil {
		t.Error("NaN accepted")
	}
}
