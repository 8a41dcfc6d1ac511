package simtest

import (
	"fmt"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// The checks of this file are the test bodies the index policies' packages
// (ucb1, moss, exp3, swucb, ducb) had each written out again.

// Gaussian returns a session of k gaussian arms with known noise sd, one
// forced pull each, horizon 5000 and the given parameters.
func Gaussian(k int, sd float64, params sdk.Params) sdk.Session {
	return sdk.Session{Arms: k, Horizon: 5000, Family: sdk.Gaussian, NoiseSD: sd, NoiseKnown: true,
		InitPulls: 1, Params: params}
}

// Bernoulli returns a session of k Bernoulli arms, one forced pull each,
// horizon 5000 and the given parameters.
func Bernoulli(k int, params sdk.Params) sdk.Session {
	return sdk.Session{Arms: k, Horizon: 5000, Family: sdk.Bernoulli, InitPulls: 1, Params: params}
}

// NewCase is a session New must accept, or refuse (WantErr), with the
// replica it gets.
type NewCase struct {
	Name    string
	S       sdk.Session
	R       sdk.Replica
	WantErr bool
}

// CheckNew runs each case as a subtest: New must return an error exactly
// when the case wants one.
func CheckNew(t *testing.T, factory sdk.Factory, cases []NewCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, err := factory(tc.S, tc.R)
			if (err != nil) != tc.WantErr {
				t.Fatalf("New error = %v, want error %v", err, tc.WantErr)
			}
		})
	}
}

// deterministicMeans are the arms CheckDeterministic plays.
var deterministicMeans = []float64{0.5, 0.45, 0.4}

// CheckDeterministic plays each session (horizon 2000, three arms of means
// 0.5, 0.45, 0.4) twice with the same seed and fails unless the arms are
// the same; with randomized, it also fails unless another seed gives other
// arms (a policy that draws must use its randomness).
func CheckDeterministic(t *testing.T, newPolicy NewPolicy, randomized bool, sessions ...sdk.Session) {
	t.Helper()
	for _, s := range sessions {
		t.Run(string(s.Family), func(t *testing.T) {
			s.Horizon = 2000
			_, a := Simulate(t, newPolicy, s, deterministicMeans, 7)
			_, b := Simulate(t, newPolicy, s, deterministicMeans, 7)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatal("same seed and rewards gave different arm sequences")
			}
			if !randomized {
				return
			}
			if _, c := Simulate(t, newPolicy, s, deterministicMeans, 8); fmt.Sprint(a) == fmt.Sprint(c) {
				t.Fatal("different seeds gave identical arm sequences: randomness not used")
			}
		})
	}
}

// CheckAllocationFreeAll runs CheckAllocationFree on each session as a
// subtest named by its family.
func CheckAllocationFreeAll(t *testing.T, newPolicy NewPolicy, sessions ...sdk.Session) {
	t.Helper()
	for _, s := range sessions {
		t.Run(string(s.Family), func(t *testing.T) { CheckAllocationFree(t, newPolicy, s) })
	}
}

// MeanDynamicRegret is the mean over seeds 0..seeds-1 of SimulateChanging's
// dynamic pseudo-regret.
func MeanDynamicRegret(tb testing.TB, newPolicy NewPolicy, s sdk.Session, meansAt func(round int) []float64, seeds int) float64 {
	tb.Helper()
	total := 0.0
	for seed := range uint64(seeds) {
		r, _ := SimulateChanging(tb, newPolicy, s, meansAt, seed)
		total += r
	}
	return total / float64(seeds)
}

// CheckFollowsAChange is the test of a policy for changing environments:
// two arms of means 0.9 and 0.6 until round change, then 0.1 and 0.6, over
// each session's horizon. With the params adaptive its mean dynamic regret
// over 10 seeds must be at most 1/ratio of the same policy's with the
// params static (the index over the whole history), which keeps pulling
// the arm that used to be best until its long average sinks.
func CheckFollowsAChange(t *testing.T, newPolicy NewPolicy, change int, adaptive, static sdk.Params, ratio float64, sessions ...sdk.Session) {
	t.Helper()
	meansAt := func(round int) []float64 {
		if round <= change {
			return []float64{0.9, 0.6}
		}
		return []float64{0.1, 0.6}
	}
	for _, s := range sessions {
		t.Run(string(s.Family), func(t *testing.T) {
			s.Params = adaptive
			a := MeanDynamicRegret(t, newPolicy, s, meansAt, 10)
			s.Params = static
			b := MeanDynamicRegret(t, newPolicy, s, meansAt, 10)
			t.Logf("dynamic regret: %v %.1f, %v %.1f", adaptive, a, static, b)
			if a > b/ratio {
				t.Fatalf("dynamic regret %.1f with %v, %.1f with %v: want at most 1/%v", a, adaptive, b, static, ratio)
			}
		})
	}
}

// BeatsUniformCase is a stationary instance on which a policy's mean
// regret must be below uniform play's divided by Factor.
type BeatsUniformCase struct {
	Name   string
	S      sdk.Session
	Means  []float64
	Factor float64
}

// CheckBeatsUniformAll runs CheckBeatsUniform over 20 seeds at horizon
// 3000 on each case, as a subtest.
func CheckBeatsUniformAll(t *testing.T, newPolicy NewPolicy, cases []BeatsUniformCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			tc.S.Horizon = 3000
			CheckBeatsUniform(t, newPolicy, tc.S, tc.Means, 20, tc.Factor)
		})
	}
}

// CheckScaleInvariant plays the gaussian session s (horizon 2000, arms of
// means 0.5, 0.45, 0.4) and again with every mean and the noise sd
// multiplied by 4, which multiplies every reward by 4 exactly, and fails
// unless the arms are the same: a policy whose defaults do not depend on
// the scale of the rewards.
func CheckScaleInvariant(t *testing.T, newPolicy NewPolicy, s sdk.Session) {
	t.Helper()
	s.Horizon = 2000
	_, a := Simulate(t, newPolicy, s, deterministicMeans, 5)
	scaled := make([]float64, len(deterministicMeans))
	for i, m := range deterministicMeans {
		scaled[i] = 4 * m
	}
	s.NoiseSD *= 4
	if _, b := Simulate(t, newPolicy, s, scaled, 5); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("rewards and noise sd times 4 gave other arms")
	}
}
