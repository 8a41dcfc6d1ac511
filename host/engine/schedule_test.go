package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
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

// TestRunAllNamesTheScenario: a failure in a pool of several scenarios
// names the scenario, and stays a policy failure (exit 3).
func TestRunAllNamesTheScenario(t *testing.T) {
	sc := parse(t, `
name: broken
environment: {means: [0.9, 0.8, 0.5], noise_sd: 0.3}
horizon: 20
runs: 3
policies:
  - {plugin: rogue, label: Rogue}
  - {plugin: ts, label: TS}
`)
	r := &rogue{answer: func(n int) (client.StepResult, error) { return client.StepResult{}, errors.New("gave up") }}
	launch := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		if p.Plugin == "rogue" {
			d, _ := r.Describe(ctx)
			return &engine.Plugin{Conn: r, Desc: d}, nil
		}
		return local(ctx, p)
	}
	files, finished, err := engine.RunAll(context.Background(), []*scenario.Scenario{parse(t, small), sc},
		engine.AllOptions{Options: engine.Options{Launch: launch}, Jobs: 2})
	if err == nil || !errors.Is(err, engine.ErrPolicyFailed) || !strings.Contains(err.Error(), `scenario broken: policy failed: policy "Rogue"`) {
		t.Fatalf("error %v, want a policy failure naming scenario broken and Rogue", err)
	}
	if !finished[0] || !finished[1] || files[1].Policy("TS").Status != "ok" {
		t.Errorf("finished %v; TS in broken: %+v", finished, files[1].Policy("TS"))
	}
}
