package metric

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestDynamicHandComputed: in a changing environment regret is dynamic
// (the gap of the round's own best arm) and underestimation is judged
// against the best arm and mu2 of the round, on the empirical mean of
// every reward of that arm observed so far, earlier segments included.
// Means (0.9, 0.5, 0.1) for rounds 1-3, then (0.1, 0.5, 0.9).
func TestDynamicHandComputed(t *testing.T) {
	g1 := []float64{0, 0.4, 0.8}
	g2 := []float64{0.8, 0.4, 0}
	rounds := []struct {
		gaps               []float64
		best               int
		arm                int32
		reward             float64
		regret, under, reu float64
	}{
		// Segment 1, b = 0, mu2 = 0.5.
		{g1, 0, 2, 0, 0.8, 0, 0}, // arm 0 never observed: not under
		{g1, 0, 0, 1, 0.8, 0, 0}, // not under (never observed), gap 0
		{g1, 0, 0, 0, 0.8, 0, 0}, // muhat_0 = 1: not under
		// Segment 2, b = 2, mu2 = 0.5: arm 2's one reward, 0, is below.
		{g2, 2, 0, 0, 1.6, 1, 0.8}, // under, gap 0.8
		{g2, 2, 2, 1, 1.6, 2, 0.8}, // under (0/1), gap 0
		{g2, 2, 2, 1, 1.6, 2, 0.8}, // muhat_2 = 1/2: not under (0.5 < 0.5 is false)
		{g2, 2, 1, 1, 2.0, 2, 0.8}, // muhat_2 = 2/3: not under, gap 0.4
	}
	tr := NewTracker(1, g1, 0, 0.5, []int{3, 7})
	tr.Dynamic(3)
	for i, r := range rounds {
		tr.Set(0, r.gaps, r.best, 0.5)
		tr.Round(i+1, []int32{r.arm}, []float64{r.reward})
		if !close(tr.regret[0], r.regret) || tr.under[0] != r.under || !close(tr.regretUnder[0], r.reu) {
			t.Fatalf("after round %d: regret %v under %v regret_under %v, want %v %v %v",
				i+1, tr.regret[0], tr.under[0], tr.regretUnder[0], r.regret, r.under, r.reu)
		}
	}
	if got := tr.Recorded[3][1][0]; !close(got, 2.0-0.8) {
		t.Errorf("regret_not_under at T = %v", got)
	}
}

func close(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestDynamicStationary: a Dynamic tracker whose environment never
// changes records bit for bit what the stationary tracker records, under
// immediate and under delayed feedback.
func TestDynamicStationary(t *testing.T) {
	const n, k, T = 5, 3, 400
	gaps := []float64{0.3, 0, 0.7}
	cps := []int{10, 100, T}
	rng := rand.New(rand.NewPCG(1, 2))
	arms := make([][]int32, T)
	rewards := make([][]float64, T)
	for r := range T {
		arms[r] = make([]int32, n)
		rewards[r] = make([]float64, n)
		for i := range n {
			arms[r][i] = int32(rng.IntN(k))
			rewards[r][i] = rng.NormFloat64() + 1
		}
	}
	for _, delayed := range []bool{false, true} {
		a := NewTracker(n, gaps, 1, 0.7, cps)
		b := NewTracker(n, gaps, 1, 0.7, cps)
		b.Dynamic(k)
		for r := range T {
			for _, tr := range []*Tracker{a, b} {
				if !delayed {
					tr.Round(r+1, arms[r], rewards[r])
					continue
				}
				// Rewards of round r-2 arrive at round r.
				if r >= 2 {
					for i := range n {
						tr.Observe(i, arms[r-2][i], rewards[r-2][i])
					}
				}
				tr.Pull(r+1, arms[r])
			}
		}
		if !reflect.DeepEqual(a.Recorded, b.Recorded) {
			t.Errorf("delayed %v: dynamic %v, stationary %v", delayed, b.Recorded, a.Recorded)
		}
	}
}
