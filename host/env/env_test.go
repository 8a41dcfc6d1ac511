package env

import (
	"math"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// TestCommonRandomNumbers: the n-th reward of an arm depends only on (seed,
// replication, arm, n), not on the order in which arms are pulled.
func TestCommonRandomNumbers(t *testing.T) {
	e, err := New(sdk.Gaussian, []float64{1, 0.5, 0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := e.Stream(42, 7)
	b := e.Stream(42, 7)
	var fromA [3][]float64
	for _, arm := range []int{0, 1, 0, 2, 0, 1} {
		fromA[arm] = append(fromA[arm], a.Pull(arm))
	}
	var fromB [3][]float64
	for _, arm := range []int{2, 1, 1, 0, 0, 0} {
		fromB[arm] = append(fromB[arm], b.Pull(arm))
	}
	for arm := range fromA {
		for n := range fromA[arm] {
			if n < len(fromB[arm]) && fromA[arm][n] != fromB[arm][n] {
				t.Fatalf("arm %d pull %d: %v vs %v", arm, n, fromA[arm][n], fromB[arm][n])
			}
		}
	}
	// Different replications and seeds give different streams.
	if e.Stream(42, 8).Pull(0) == e.Stream(42, 7).Pull(0) || e.Stream(43, 7).Pull(0) == e.Stream(42, 7).Pull(0) {
		t.Fatal("streams of different replications or seeds coincide")
	}
}

// TestRewardMoments: gaussian rewards have the declared mean and sd, and
// bernoulli rewards the declared success rate (tolerance: 5 standard errors).
func TestRewardMoments(t *testing.T) {
	const n = 200000
	g, _ := New(sdk.Gaussian, []float64{0.3, -1}, 2)
	s := g.Stream(1, 0)
	var sum, ss float64
	for i := 0; i < n; i++ {
		x := s.Pull(1)
		sum += x
		ss += x * x
	}
	mean := sum / n
	sd := math.Sqrt(ss/n - mean*mean)
	if math.Abs(mean+1) > 5*2/math.Sqrt(n) || math.Abs(sd-2) > 5*2/math.Sqrt(2*n) {
		t.Errorf("gaussian: mean %v sd %v, want -1 and 2", mean, sd)
	}
	b, _ := New(sdk.Bernoulli, []float64{0.1, 0.7}, 0)
	s = b.Stream(1, 0)
	sum = 0
	for i := 0; i < n; i++ {
		x := s.Pull(1)
		if x != 0 && x != 1 {
			t.Fatalf("bernoulli reward %v", x)
		}
		sum += x
	}
	if p := sum / n; math.Abs(p-0.7) > 5*math.Sqrt(0.21/n) {
		t.Errorf("bernoulli: rate %v, want 0.7", p)
	}
}

func TestBestAndSecond(t *testing.T) {
	e, _ := New(sdk.Gaussian, []float64{1, 3, 3, 2, 3}, 1)
	if e.Best() != 1 || e.Second() != 2 {
		t.Fatalf("best %d second %v, want 1 and 2", e.Best(), e.Second())
	}
	if g := e.Gaps(); g[0] != 2 || g[2] != 0 || g[3] != 1 {
		t.Fatalf("gaps %v", g)
	}
}
