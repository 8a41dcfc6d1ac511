package simtest

import (
	"math"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// fixed always selects arm and records what it observes.
type fixed struct {
	arm     int
	rounds  []int
	arms    []int
	rewards []float64
}

func (f *fixed) Select(t int) int { return f.arm }

func (f *fixed) Observe(t, arm int, reward float64) {
	f.rounds = append(f.rounds, t)
	f.arms = append(f.arms, arm)
	f.rewards = append(f.rewards, reward)
}

func TestSimulate(t *testing.T) {
	means := []float64{0.2, 0.7, 0.5}
	for _, fam := range []sdk.Family{sdk.Gaussian, sdk.Bernoulli} {
		t.Run(string(fam), func(t *testing.T) {
			s := sdk.Session{Arms: 3, Horizon: 2000, Family: fam, NoiseSD: 0.1, NoiseKnown: true, InitPulls: 2}
			var got *fixed
			newFixed := func(tb testing.TB, _ sdk.Session, seed uint64) sdk.Policy {
				got = &fixed{arm: 2}
				return got
			}
			regret, arms := Simulate(t, newFixed, s, means, 4)
			// 6 forced rounds pull 0,1,2,0,1,2 (regret 0.5+0+0.2 twice),
			// then arm 2 (regret 0.2) for the remaining 1994.
			if want := 2*0.7 + 1994*0.2; math.Abs(regret-want) > 1e-9 {
				t.Fatalf("regret %v, want %v", regret, want)
			}
			for i, a := range arms {
				want := 2
				if i < 6 {
					want = i % 3
				}
				if a != want || got.arms[i] != want || got.rounds[i] != i+1 {
					t.Fatalf("round %d: pulled %d, observed arm %d at t=%d, want arm %d", i+1, a, got.arms[i], got.rounds[i], want)
				}
			}
			sum := 0.0
			for _, r := range got.rewards[6:] {
				if fam == sdk.Bernoulli && r != 0 && r != 1 {
					t.Fatalf("bernoulli reward %v", r)
				}
				sum += r
			}
			if m := sum / 1994; math.Abs(m-0.5) > 0.05 {
				t.Fatalf("mean reward of arm 2 is %v, want ~0.5", m)
			}
			first := got.rewards
			Simulate(t, newFixed, s, means, 4)
			for i := range first {
				if first[i] != got.rewards[i] {
					t.Fatalf("same seed, different reward at round %d", i+1)
				}
			}
		})
	}
}

func TestUniformRegret(t *testing.T) {
	if got, want := UniformRegret(100, []float64{0.9, 0.8, 0.4}), 100*(0.9-0.7); math.Abs(got-want) > 1e-12 {
		t.Fatalf("UniformRegret = %v, want %v", got, want)
	}
}
