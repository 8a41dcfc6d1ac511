package env

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/internal/seed"
)

// costMatrix is a small cost matrix: class 1's two cheapest arms tie, no
// diagonal is required to be 0 (class 2's cheapest cost is 0.5), and the
// columns differ, so that a column identifies its class.
var costMatrix = [][]float64{
	{0, 0.5, 1},
	{0.25, 0.25, 1},
	{1, 0.75, 0.5},
}

// The rewards and regrets of costMatrix, by hand: reward 1 - cost[y][a],
// regret cost[y][a] - min_b cost[y][b].
var (
	costRewards = [][]float64{{1, 0.5, 0}, {0.75, 0.75, 0}, {0, 0.25, 0.5}}
	costRegrets = [][]float64{{0, 0.5, 1}, {0, 0, 0.75}, {0.5, 0.25, 0}}
)

// tinyData is a dataset of n rows, one feature each (row i's is i + 1, so
// that the feature names the row, up to a sealed run's sign), classes
// i mod 3.
func tinyData(n int) *dataset.Dataset {
	d := &dataset.Dataset{Name: "tiny", N: n, D: 1, K: 3, Classes: []string{"a", "b", "c"}, Features: []string{"x"}}
	for i := range n {
		d.X = append(d.X, float64(i+1))
		d.Y = append(d.Y, i%3)
	}
	return d
}

// TestContextualCost: with a cost matrix, every arm's reward and regret in
// every round are the hand-computed ones of the row's class; the oracle
// (Best, the first cheapest arm) has no regret.
func TestContextualCost(t *testing.T) {
	d := tinyData(30)
	e, err := NewContextual(ContextSpec{Data: d, DataID: "tiny", Cost: costMatrix}, seed.Int(5))
	if err != nil {
		t.Fatal(err)
	}
	s := e.Stream(1, d.N)
	x := make([]float64, 1)
	for t0 := 1; t0 <= d.N; t0++ {
		s.Next(x)
		y := d.Y[int(x[0])-1]
		for a := range 3 {
			r, g := s.Pull(a)
			if r != costRewards[y][a] || g != costRegrets[y][a] {
				t.Fatalf("round %d, class %d, arm %d: reward %v regret %v, want %v and %v", t0, y, a, r, g, costRewards[y][a], costRegrets[y][a])
			}
		}
		if want := []int{0, 0, 2}[y]; s.Best() != want {
			t.Errorf("round %d, class %d: best arm %d, want %d", t0, y, s.Best(), want)
		}
		if _, g := s.Pull(s.Best()); g != 0 {
			t.Errorf("round %d: the oracle's regret %v", t0, g)
		}
	}
}

// TestContextualCostSealed: a sealed run looks the cost up in the
// original classes: in every round the arms' (reward, regret) pairs are
// those of the row's class, permuted by one relabelling per replication
// (found from the rewards, and not the identity in every replication), so
// a policy's regret distribution is the open run's under the relabelling.
func TestContextualCostSealed(t *testing.T) {
	d := tinyData(60)
	e, err := NewContextual(ContextSpec{Data: d, DataID: "tiny", Cost: costMatrix}, secretOf(3))
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for rep := range uint64(8) {
		s := e.Stream(rep, d.N)
		x := make([]float64, 1)
		// class[a]: the class whose cost column arm a plays, found in the
		// first round each arm's reward tells it apart, then checked in
		// every round.
		class := []int{-1, -1, -1}
		for t0 := 1; t0 <= d.N; t0++ {
			s.Next(x)
			y := d.Y[int(math.Abs(x[0]))-1]
			var got, want [][2]float64
			for a := range 3 {
				r, g := s.Pull(a)
				got = append(got, [2]float64{r, g})
				want = append(want, [2]float64{costRewards[y][a], costRegrets[y][a]})
				if class[a] < 0 && y == 0 { // class 0's rewards 1, 0.5, 0 name the column
					class[a] = map[float64]int{1: 0, 0.5: 1, 0: 2}[r]
				}
				if c := class[a]; c >= 0 && (r != costRewards[y][c] || g != costRegrets[y][c]) {
					t.Fatalf("replication %d round %d: arm %d plays class %d's column in one round and not in another", rep, t0, a, c)
				}
			}
			sortPairs(got)
			sortPairs(want)
			if !slices.Equal(got, want) {
				t.Fatalf("replication %d round %d, class %d: (reward, regret) of the arms %v, want a permutation of %v", rep, t0, y, got, want)
			}
			if _, g := s.Pull(s.Best()); g != 0 {
				t.Errorf("replication %d round %d: the oracle's regret %v", rep, t0, g)
			}
		}
		if !slices.Contains(class, 0) || !slices.Contains(class, 1) || !slices.Contains(class, 2) {
			t.Fatalf("replication %d: arms play classes %v, not a permutation", rep, class)
		}
		moved = moved || !slices.Equal(class, []int{0, 1, 2})
	}
	if !moved {
		t.Error("no replication of the sealed run relabelled the classes")
	}
}

func sortPairs(p [][2]float64) {
	slices.SortFunc(p, func(a, b [2]float64) int {
		if a[0] != b[0] {
			return cmpFloat(a[0], b[0])
		}
		return cmpFloat(a[1], b[1])
	})
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestContextualCostZeroOne: the 0/1 matrix given explicitly (0 on the
// diagonal, 1 elsewhere) plays bit for bit as no matrix, open and sealed:
// the same contexts, rewards, regrets and best arms.
func TestContextualCostZeroOne(t *testing.T) {
	d := loadStd(t, "iris")
	zeroOne := make([][]float64, d.K)
	for y := range zeroOne {
		zeroOne[y] = make([]float64, d.K)
		for a := range zeroOne[y] {
			if a != y {
				zeroOne[y][a] = 1
			}
		}
	}
	for _, sd := range []seed.Seed{seed.Int(2), secretOf(7)} {
		plain, err := NewContextual(ContextSpec{Data: d, DataID: "dataset:iris"}, sd)
		if err != nil {
			t.Fatal(err)
		}
		costed, err := NewContextual(ContextSpec{Data: d, DataID: "dataset:iris", Cost: zeroOne}, sd)
		if err != nil {
			t.Fatal(err)
		}
		for rep := range uint64(4) {
			arm := func(t int, s *ContextStream) int { return (t*5 + int(rep)) % 3 }
			x1, r1, g1 := play(plain, rep, d.N, arm)
			x2, r2, g2 := play(costed, rep, d.N, arm)
			if !slices.Equal(x1, x2) || !slices.Equal(r1, r2) || !slices.Equal(g1, g2) {
				t.Fatalf("seed %v replication %d: the explicit 0/1 matrix plays differently from none", sd, rep)
			}
			s1, s2 := plain.Stream(rep, d.N), costed.Stream(rep, d.N)
			x := make([]float64, d.D)
			for range d.N {
				s1.Next(x)
				s2.Next(x)
				if s1.Best() != s2.Best() {
					t.Fatalf("seed %v replication %d: best arms %d and %d", sd, rep, s1.Best(), s2.Best())
				}
			}
		}
	}
}

// TestContextualCostRefused: NewContextual refuses a malformed matrix and
// a matrix on a model.
func TestContextualCostRefused(t *testing.T) {
	d := tinyData(6)
	for _, c := range []struct {
		name string
		spec ContextSpec
		want string
	}{
		{"rows", ContextSpec{Data: d, Cost: costMatrix[:2]}, "cost matrix of 2 rows for 3 classes"},
		{"row", ContextSpec{Data: d, Cost: [][]float64{{0, 1, 1}, {1, 0}, {1, 1, 0}}}, "cost matrix row 1: 2 values for 3 classes"},
		{"nan", ContextSpec{Data: d, Cost: [][]float64{{0, 1, 1}, {1, 0, 1}, {1, math.NaN(), 0}}}, "cost[2][1] = NaN"},
		{"above 1", ContextSpec{Data: d, Cost: [][]float64{{0, 2, 1}, {1, 0, 1}, {1, 1, 0}}}, "cost[0][1] = 2"},
		{"model", ContextSpec{Model: LogisticBernoulli, Arms: 3, Dim: 2, Cost: costMatrix}, "a cost matrix is for a dataset only"},
	} {
		if _, err := NewContextual(c.spec, seed.Int(1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
