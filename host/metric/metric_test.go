package metric

import (
	"math"
	"testing"
)

// TestTrackerHandComputed checks every metric on a tiny case worked out by
// hand: means (1, 0.5, 0), best arm 0, mu2 = 0.5, one replication.
func TestTrackerHandComputed(t *testing.T) {
	gaps := []float64{0, 0.5, 1}
	rounds := []struct {
		arm    int32
		reward float64
		// state after the round, worked out by hand
		regret, under, regretUnder float64
	}{
		// t=1: arm 0 never pulled before -> not underestimated.
		{0, 0.2, 0, 0, 0},
		// t=2: muhat_0 = 0.2 < 0.5 -> under; gap 0.5.
		{1, 0.9, 0.5, 1, 0.5},
		// t=3: still 0.2 -> under; gap 1.
		{2, 0.0, 1.5, 2, 1.5},
		// t=4: under (0.2); pulls arm 0 with 1.8 -> muhat_0 = 1.0 afterwards.
		{0, 1.8, 1.5, 3, 1.5},
		// t=5: muhat_0 = 1.0 >= 0.5 -> not under; gap 0.5.
		{1, 0.4, 2.0, 3, 1.5},
		// t=6: not under; gap 1.
		{2, 0.1, 3.0, 3, 1.5},
	}
	cps := []int{2, 4, 6}
	tr := NewTracker(1, gaps, 0, 0.5, cps)
	for i, r := range rounds {
		tr.Round(i+1, []int32{r.arm}, []float64{r.reward})
		if tr.regret[0] != r.regret || tr.under[0] != r.under || tr.regretUnder[0] != r.regretUnder {
			t.Fatalf("after round %d: regret %v under %v regret_under %v, want %v %v %v",
				i+1, tr.regret[0], tr.under[0], tr.regretUnder[0], r.regret, r.under, r.regretUnder)
		}
	}
	want := [4][]float64{
		{0.5, 1.5, 3.0}, // regret at t=2,4,6
		{1, 3, 3},       // underestimation
		{0.5, 1.5, 1.5}, // regret_under
		{0, 0, 1.5},     // regret_not_under
	}
	for m := range want {
		for c := range cps {
			if got := tr.Recorded[m][c][0]; got != want[m][c] {
				t.Errorf("%s at t=%d: got %v, want %v", Names[m], cps[c], got, want[m][c])
			}
		}
	}
}

// TestTrackerNoSecondArm: when every arm ties there is no mu2 and no round
// is underestimated.
func TestTrackerNoSecondArm(t *testing.T) {
	tr := NewTracker(1, []float64{0, 0}, 0, math.Inf(-1), []int{3})
	for r := 1; r <= 3; r++ {
		tr.Round(r, []int32{int32(r % 2)}, []float64{-100})
	}
	if tr.Recorded[1][0][0] != 0 || tr.Recorded[0][0][0] != 0 {
		t.Fatalf("ties: got regret %v under %v, want 0 0", tr.Recorded[0][0][0], tr.Recorded[1][0][0])
	}
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		xs       []float64
		mean, se float64
	}{
		{"one", []float64{3}, 3, 0},
		// sd of (1,2,3,4) is sqrt(5/3); se = sd/2.
		{"four", []float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0/3) / 2},
		{"constant", []float64{7, 7, 7}, 7, 0},
	} {
		s := Summarize(tc.xs)
		if math.Abs(s.Mean-tc.mean) > 1e-15 || math.Abs(s.SE-tc.se) > 1e-15 {
			t.Errorf("%s: got %+v, want mean %v se %v", tc.name, s, tc.mean, tc.se)
		}
	}
}

// TestTrackerDelayed: under delayed feedback regret counts at pull time,
// but the best arm's empirical mean moves only when a reward is observed;
// observing each reward before the next pull gives exactly Round's values.
func TestTrackerDelayed(t *testing.T) {
	gaps := []float64{0, 0.5, 1}
	// Means (1, 0.5, 0): mu2 = 0.5. Arm 0 pulled in round 1 with reward
	// 0.2, which arrives only at round 4; arm 0 again at round 2 (reward
	// 1.8, arrives at round 3).
	tr := NewTracker(1, gaps, 0, 0.5, []int{5})
	tr.Pull(1, []int32{0})
	tr.Pull(2, []int32{0})
	tr.Observe(0, 0, 1.8) // round 2's reward, at the start of round 3
	tr.Pull(3, []int32{1})
	tr.Observe(0, 0, 0.2) // round 1's reward, at the start of round 4
	tr.Observe(0, 1, 9)   // another arm's reward does not count
	tr.Pull(4, []int32{2})
	tr.Pull(5, []int32{2})
	// Rounds 1-2: nothing observed, not under. Round 3: muhat 1.8, not
	// under. Rounds 4-5: muhat (1.8+0.2)/2 = 1.0, not under.
	if tr.regret[0] != 2.5 || tr.under[0] != 0 {
		t.Fatalf("regret %v under %v, want 2.5 0", tr.regret[0], tr.under[0])
	}
	// Now an underestimating first observation: round 1's 0.2 arrives
	// first; round 3's pull of arm 1 counts as underestimated.
	tr = NewTracker(1, gaps, 0, 0.5, []int{3})
	tr.Pull(1, []int32{0})
	tr.Observe(0, 0, 0.2)
	tr.Pull(2, []int32{1})
	tr.Pull(3, []int32{2})
	if tr.regret[0] != 1.5 || tr.under[0] != 2 || tr.regretUnder[0] != 1.5 {
		t.Fatalf("regret %v under %v regret_under %v, want 1.5 2 1.5", tr.regret[0], tr.under[0], tr.regretUnder[0])
	}
	if got := tr.Recorded[3][0][0]; got != 0 {
		t.Errorf("regret_not_under at round 3: %v, want 0", got)
	}

	// Pull then Observe of the same round equals Round, bit for bit.
	arms := []int32{0, 1, 0, 2, 0, 0, 1}
	rewards := []float64{0.1, 0.7, 0.45, 0.3, 0.9, 0.2, 0.5}
	cps := []int{2, 5, 7}
	a := NewTracker(1, gaps, 0, 0.5, cps)
	b := NewTracker(1, gaps, 0, 0.5, cps)
	for i := range arms {
		a.Round(i+1, arms[i:i+1], rewards[i:i+1])
		b.Pull(i+1, arms[i:i+1])
		b.Observe(0, arms[i], rewards[i])
	}
	for m := range a.Recorded {
		for c := range cps {
			if a.Recorded[m][c][0] != b.Recorded[m][c][0] {
				t.Errorf("metric %d at checkpoint %d: Pull+Observe %v, Round %v", m, cps[c], b.Recorded[m][c][0], a.Recorded[m][c][0])
			}
		}
	}
}
