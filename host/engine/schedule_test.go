package engine_test

import (
	"context"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/scenario"
)

// TestRunAll: one pool over several scenarios, every (scenario, policy)
// a job run longest first, gives each scenario exactly the file a run of
// it alone gives (common random numbers: order changes no number), its
// policies in scenario order, and says every scenario finished.
func TestRunAll(t *testing.T) {
	a := parse(t, small)
	b := parse(t, `
name: other
environment: {family: gaussian, means: [0.5, 0.6], noise_sd: 0.2}
horizon: 300
runs: 20
seed: 9
policies:
  - {plugin: klucb, label: KL-UCB}
  - {plugin: remax, label: ReMax}
  - {plugin: ts, label: TS}
`)
	for _, jobs := range []int{1, 3} {
		files, finished, err := engine.RunAll(context.Background(), []*scenario.Scenario{a, b},
			engine.AllOptions{Options: engine.Options{Launch: local}, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		for i, sc := range []*scenario.Scenario{a, b} {
			if !finished[i] {
				t.Errorf("jobs %d: %s not finished", jobs, sc.Name)
			}
			if got, want := canonical(t, files[i]), canonical(t, run(t, sc, engine.Options{})); got != want {
				t.Errorf("jobs %d: %s from RunAll differs from a run of it alone", jobs, sc.Name)
			}
		}
	}
	// Longest first: exact ReMax's QP grows with K^2, the others with K.
	if engine.Cost(b, b.Policies[1]) <= engine.Cost(b, b.Policies[0]) {
		t.Error("ReMax is not estimated costlier than KL-UCB")
	}
}
