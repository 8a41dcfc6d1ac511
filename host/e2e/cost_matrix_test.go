package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// costPolicies are the policies of the cost-matrix tests: two contextual
// baselines that learn from the rewards, so that the arms they pull (and
// so the costs they pay) depend on the rewards bench gives them.
const costPolicies = "policies:\n  - {plugin: linucb, label: LinUCB}\n  - {plugin: lingreedy, label: Greedy}\n"

// costScenario writes a credit_g scenario named costed (the same name for
// every variant, so that results files compare), with context extra
// (", cost: ..." or "") and seed.
func costScenario(t *testing.T, dir, file, extra, seed string) string {
	t.Helper()
	p := filepath.Join(dir, file)
	text := "name: costed\ncontext: {dataset: credit_g" + extra + "}\nhorizon: 150\nruns: 4\nseed: " + seed + "\n" + costPolicies
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCostMatrixZeroOneIdentical: the 0/1 cost matrix written out (0 on
// the diagonal, 1 elsewhere) gives results bit for bit those of the same
// scenario without a cost matrix, with an integer seed and with a secret
// one (a sealed run, whose relabelling the cost lookup undoes): the cost
// path reproduces the 0/1 reward exactly, and the costs are not part of
// the streams' key.
func TestCostMatrixZeroOneIdentical(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, seed := range []string{"7", `"0x` + strings.Repeat("5a", 32) + `"`} {
		plain := runTo(t, dir, "plain.json", "--scenario", costScenario(t, dir, "plain.yaml", "", seed))
		costed := withoutCost(t, runTo(t, dir, "costed.json", "--scenario", costScenario(t, dir, "costed.yaml", ", cost: [[0, 1], [1, 0]]", seed)), [][]float64{{0, 1}, {1, 0}})
		if a, b := comparable(t, plain), comparable(t, costed); a != b {
			t.Errorf("seed %s: the explicit 0/1 cost matrix gives other results than none", seed)
		}
	}
}

// withoutCost checks that the results file at path records the cost
// matrix want, and returns the path of a copy without it: the one field
// in which a run with the 0/1 matrix written out may differ from a run
// without one (it records its matrix, so that runs under other costs are
// other experiments).
func withoutCost(t *testing.T, path string, want [][]float64) string {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ctx := f.Scenario.Context; ctx == nil || !reflect.DeepEqual(ctx.Cost, want) {
		t.Fatalf("%s: scenario.context records cost %v, want %v", path, f.Scenario.Context, want)
	}
	f.Scenario.Context.Cost = nil
	out := strings.TrimSuffix(path, ".json") + ".nocost.json"
	if err := f.WriteFile(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCostMatrixRegret: with a cost matrix whose rows' smallest costs are
// not 0 (0.5 for class good, 0.6 for class bad), every replication's
// final regret is its total cost (horizon x pv_loss) less the sum of the
// smallest costs of the rows it played, 0.5 x horizon + 0.1 x (its bad
// rows): so horizon x pv_loss - regret is, for each replication, the same
// for every policy (common random numbers: the same rows) and 0.5 x
// horizon plus 0.1 times an integer in [0, horizon]. The shipped
// contextual_credit_g_cost (each row's smallest cost 0) has regret equal
// to horizon x pv_loss, and its 0.2 cost shows: some policy's total cost
// is not a whole number.
func TestCostMatrixRegret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const horizon = 150
	f := readResults(t, runTo(t, dir, "shifted.json", "--scenario",
		costScenario(t, dir, "shifted.yaml", ", cost: [[0.5, 0.7], [0.9, 0.6]]", "11")))
	var first []float64 // replication r's smallest-cost sum, from the first policy
	for _, p := range f.Policies {
		regret, pv := p.Final["regret"], p.Final["pv_loss"]
		if len(regret) != 4 || len(pv) != 4 {
			t.Fatalf("%s: finals %v", p.Label, p.Final)
		}
		for r := range regret {
			base := horizon*pv[r] - regret[r]
			bad := (base - 0.5*horizon) / 0.1
			if math.Abs(bad-math.Round(bad)) > 1e-6 || bad < -1e-6 || bad > horizon+1e-6 {
				t.Errorf("%s replication %d: regret %v, pv_loss %v: the smallest costs sum to %v, not 0.5 x %d + 0.1 x a row count",
					p.Label, r, regret[r], pv[r], base, horizon)
			}
			if first == nil || len(first) <= r {
				first = append(first, base)
			} else if math.Abs(first[r]-base) > 1e-9 {
				t.Errorf("%s replication %d: the smallest costs sum to %v, another policy's to %v: not the same rows", p.Label, r, base, first[r])
			}
		}
	}

	f = readResults(t, runTo(t, dir, "shipped.json", "--scenario", "contextual_credit_g_cost", "--runs", "3", "--horizon", "200"))
	fractional := false
	for _, p := range f.Policies {
		regret, pv := p.Final["regret"], p.Final["pv_loss"]
		for r := range regret {
			cost := 200 * pv[r]
			if math.Abs(cost-regret[r]) > 1e-9 {
				t.Errorf("%s replication %d: regret %v, total cost %v: the cheapest arm costs 0 in every row", p.Label, r, regret[r], cost)
			}
			if fives := 5 * cost; math.Abs(fives-math.Round(fives)) > 1e-6 {
				t.Errorf("%s replication %d: total cost %v is not a multiple of 0.2", p.Label, r, cost)
			}
			fractional = fractional || math.Abs(cost-math.Round(cost)) > 1e-6
		}
	}
	if !fractional {
		t.Error("no policy paid the 0.2 cost of refusing a good customer: the cost matrix is not played")
	}
}
