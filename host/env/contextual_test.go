package env

import (
	"math"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/internal/seed"
)

func loadStd(t *testing.T, name string) *dataset.Dataset {
	t.Helper()
	d, err := dataset.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	d.Standardize()
	return d
}

// specs are one environment of each kind.
func specs(t *testing.T) map[string]ContextSpec {
	return map[string]ContextSpec{
		"dataset":       {Data: loadStd(t, "iris"), DataID: "dataset:iris"},
		"linear":        {Model: LinearGaussian, Arms: 4, Dim: 3, NoiseSD: 0.5},
		"linear perarm": {Model: LinearGaussian, Arms: 3, Dim: 2, PerArm: true, NoiseSD: 0.1},
		"logistic":      {Model: LogisticBernoulli, Arms: 5, Dim: 4},
	}
}

// play plays replication rep for T rounds, arm choose(t, x, stream) each
// round, and returns the contexts, rewards and regrets.
func play(e *Contextual, rep uint64, T int, choose func(t int, s *ContextStream) int) (xs, rewards, regrets []float64) {
	s := e.Stream(rep, T)
	x := make([]float64, e.Width())
	for t := 1; t <= T; t++ {
		s.Next(x)
		xs = append(xs, x...)
		r, g := s.Pull(choose(t, s))
		rewards = append(rewards, r)
		regrets = append(regrets, g)
	}
	return xs, rewards, regrets
}

// TestContextualCRN: replication r's contexts do not depend on the policy,
// on the other replications or on the order streams are made in; two
// policies that pull the same arm in the same round get the same reward;
// another replication or another seed gives other contexts.
func TestContextualCRN(t *testing.T) {
	for _, sd := range []seed.Seed{seed.Int(3), secretOf(9)} {
		for name, spec := range specs(t) {
			e, err := NewContextual(spec, sd)
			if err != nil {
				t.Fatal(err)
			}
			const T = 100
			first := func(int, *ContextStream) int { return 0 }
			other := func(t int, _ *ContextStream) int { return (t * 7) % e.K() }
			oracle := func(_ int, s *ContextStream) int { return s.Best() }
			e.Stream(5, T) // another replication made first changes nothing
			x1, r1, _ := play(e, 2, T, first)
			x2, _, _ := play(e, 2, T, other)
			x3, r3, g3 := play(e, 2, T, oracle)
			if !slices.Equal(x1, x2) || !slices.Equal(x1, x3) {
				t.Errorf("%s, seed %v: the contexts of replication 2 depend on the policy", name, sd)
			}
			e2, _ := NewContextual(spec, sd)
			if x4, r4, _ := play(e2, 2, T, first); !slices.Equal(x1, x4) || !slices.Equal(r1, r4) {
				t.Errorf("%s: a second environment of the same seed differs", name)
			}
			// Same arm, same round: same reward, whatever came before.
			_, rMix, _ := play(e, 2, T, func(t int, s *ContextStream) int {
				if t%2 == 0 {
					return 0
				}
				return s.Best()
			})
			for i := range T {
				if i%2 == 1 && rMix[i] != r1[i] || i%2 == 0 && rMix[i] != r3[i] {
					t.Fatalf("%s: round %d: reward %v depends on the earlier arms", name, i+1, rMix[i])
				}
			}
			for i, g := range g3 {
				if g != 0 {
					t.Fatalf("%s: the oracle has regret %v in round %d", name, g, i+1)
				}
			}
			if x5, _, _ := play(e, 3, T, first); slices.Equal(x1, x5) {
				t.Errorf("%s: replications 2 and 3 see the same contexts", name)
			}
			e6, _ := NewContextual(spec, seed.Int(4))
			if x6, _, _ := play(e6, 2, T, first); slices.Equal(x1, x6) {
				t.Errorf("%s: seeds %v and 4 give the same contexts", name, sd)
			}
		}
	}
}

// TestContextualConstantArm: on a dataset played to its last row, a
// constant arm's regret is exactly the number of rows of other classes
// (its error rate x N), and the rows are a permutation.
func TestContextualConstantArm(t *testing.T) {
	d := loadStd(t, "wine")
	e, err := NewContextual(ContextSpec{Data: d, DataID: "dataset:wine"}, seed.Int(1))
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, d.K)
	for _, y := range d.Y {
		count[y]++
	}
	for a := range d.K {
		_, rewards, regrets := play(e, 7, d.N, func(int, *ContextStream) int { return a })
		var sum, sumR float64
		for i := range regrets {
			sum += regrets[i]
			sumR += rewards[i]
			if regrets[i] != 1-rewards[i] {
				t.Fatalf("regret %v != 1 - reward %v", regrets[i], rewards[i])
			}
		}
		if want := float64(d.N - count[a]); sum != want || sumR != float64(count[a]) {
			t.Errorf("arm %d: regret %v, want %v (rows of other classes)", a, sum, want)
		}
	}
	s := e.Stream(7, d.N)
	rows := slices.Clone(s.order)
	slices.Sort(rows)
	for i, r := range rows {
		if int(r) != i {
			t.Fatalf("the row order is not a permutation of the rows")
		}
	}
	if short := e.Stream(7, 10); !slices.Equal(short.order, s.order[:10]) {
		t.Errorf("a shorter horizon plays other rows: %v, want %v", short.order, s.order[:10])
	}
}

// TestContextualSyntheticRegret: a synthetic round's regret is the best
// expected reward minus the arm's, >= 0; a linear-Gaussian reward is its
// mean plus noise of the declared sd; a logistic one is 0 or 1 with mean
// its probability.
func TestContextualSyntheticRegret(t *testing.T) {
	for _, c := range []struct {
		spec ContextSpec
	}{
		{ContextSpec{Model: LinearGaussian, Arms: 4, Dim: 3, NoiseSD: 0.5}},
		{ContextSpec{Model: LogisticBernoulli, Arms: 3, Dim: 2, PerArm: true}},
	} {
		e, err := NewContextual(c.spec, seed.Int(11))
		if err != nil {
			t.Fatal(err)
		}
		const T = 20000
		s := e.Stream(0, T)
		x := make([]float64, e.Width())
		var resid, resid2 float64
		for range T {
			s.Next(x)
			mu := s.Means()
			a := 1
			r, g := s.Pull(a)
			if want := mu[s.Best()] - mu[a]; g != want || g < 0 {
				t.Fatalf("%s: regret %v, want %v", c.spec.Model, g, want)
			}
			if c.spec.Model == LogisticBernoulli && r != 0 && r != 1 {
				t.Fatalf("logistic reward %v", r)
			}
			resid += r - mu[a]
			resid2 += (r - mu[a]) * (r - mu[a])
		}
		if m := resid / T; math.Abs(m) > 0.02 {
			t.Errorf("%s: mean of reward - mean %v, want about 0", c.spec.Model, m)
		}
		if c.spec.Model == LinearGaussian {
			if sd := math.Sqrt(resid2 / T); math.Abs(sd-0.5) > 0.02 {
				t.Errorf("noise sd %v, want 0.5", sd)
			}
		}
	}
}

// TestContextualSealed: under a secret seed, each replication relabels the
// classes by a permutation and transforms the features: the features
// change, but each row's distances and norm (an orthogonal map) and its
// class (through the relabelling) are kept.
func TestContextualSealed(t *testing.T) {
	d := loadStd(t, "vehicle")
	spec := ContextSpec{Data: d, DataID: "dataset:vehicle"}
	e, err := NewContextual(spec, secretOf(3))
	if err != nil {
		t.Fatal(err)
	}
	if !e.Sealed() {
		t.Fatal("a secret seed is not sealed")
	}
	var relabels [][]int32
	for rep := range uint64(3) {
		s := e.Stream(rep, 50)
		rl := slices.Clone(s.relabel)
		relabels = append(relabels, rl)
		sorted := slices.Clone(rl)
		slices.Sort(sorted)
		for i, v := range sorted {
			if int(v) != i {
				t.Fatalf("replication %d: relabelling %v is not a permutation", rep, rl)
			}
		}
		x := make([]float64, e.Width())
		var prev []float64
		var prevRow int
		for i := range 50 {
			s.Next(x)
			row := int(s.order[i])
			if s.Best() != int(rl[d.Y[row]]) {
				t.Fatalf("round %d: arm %d is right, want the relabelled class %d", i+1, s.Best(), rl[d.Y[row]])
			}
			src := d.Row(row)
			if slices.Equal(x, src) {
				t.Fatalf("round %d: the features are not transformed", i+1)
			}
			if a, b := norm(x), norm(src); math.Abs(a-b) > 1e-9*max(1, b) {
				t.Fatalf("round %d: norm %v, want %v", i+1, a, b)
			}
			if prev != nil {
				if a, b := dist(x, prev), dist(src, d.Row(prevRow)); math.Abs(a-b) > 1e-9*max(1, b) {
					t.Fatalf("round %d: distance %v to the previous row, want %v", i+1, a, b)
				}
			}
			prev, prevRow = slices.Clone(x), row
		}
	}
	if slices.Equal(relabels[0], relabels[1]) && slices.Equal(relabels[1], relabels[2]) {
		t.Errorf("three replications share one relabelling %v", relabels[0])
	}
	// An integer seed neither relabels nor transforms.
	plain, _ := NewContextual(spec, seed.Int(3))
	s := plain.Stream(0, 5)
	x := make([]float64, plain.Width())
	s.Next(x)
	if row := int(s.order[0]); !slices.Equal(x, d.Row(row)) || s.Best() != d.Y[row] {
		t.Errorf("an integer seed changes the row or its class")
	}
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}
