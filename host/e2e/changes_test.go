package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// changingEnvironments are a scenario head of each form of changing
// environment, both families, at a test's scale.
var changingEnvironments = []struct{ name, env string }{
	{"steps bernoulli", `{family: bernoulli, means: [0.9, 0.5, 0.1], changes: [{at: 60, means: [0.1, 0.5, 0.9]}, {at: 130, means: [0.5, 0.9, 0.1]}]}`},
	{"drift gaussian", `{family: gaussian, means: [0.8, 0.2, 0.5], noise_sd: 0.3, drift: [{at: 100, means: [0.2, 0.8, 0.5]}, {at: 150, means: [0.2, 0.8, 0.5]}, {at: 199, means: [0.9, 0.1, 0.4]}]}`},
	{"random bernoulli", `{family: bernoulli, means: [0.3, 0.7, 0.5], random_changes: {rate: 0.02, means: {uniform: [0.1, 0.9]}}}`},
	{"random gaussian", `{family: gaussian, means: [0, 1, 0.5], noise_sd: 1, random_changes: {rate: 0.01, means: {uniform: [-1, 1]}}}`},
}

// TestChangingCommonRandomNumbers: changes are common random numbers, with
// the real plugin processes. A policy's per-replication results are the
// same whether or not another policy runs beside it, and four shards
// merged give exactly the unsharded file. The random forms draw each
// replication's breakpoints and means from a stream of its own.
func TestChangingCommonRandomNumbers(t *testing.T) {
	skipShort(t, "runs real plugins over many scenarios")
	t.Parallel()
	for _, c := range changingEnvironments {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			scenario := func(name, policies string) string {
				return writeFile(t, name, fmt.Sprintf("name: crn\nenvironment: %s\nhorizon: 200\nruns: 12\nseed: 5\npolicies:\n%s", c.env, policies))
			}
			both := scenario("both.yaml", "  - {plugin: swucb, label: A, params: {tau: 40}}\n  - {plugin: ts, label: B}\n  - {plugin: ducb, label: C}\n")
			alone := scenario("alone.yaml", "  - {plugin: swucb, label: A, params: {tau: 40}}\n")

			whole := runTo(t, dir, "whole.json", "--scenario", both)
			single := runTo(t, dir, "alone.json", "--scenario", alone)
			fw, fa := readResults(t, whole), readResults(t, single)
			if fw.Policies[0].Label != "A" || fa.Policies[0].Label != "A" {
				t.Fatalf("policies %q, %q", fw.Policies[0].Label, fa.Policies[0].Label)
			}
			for _, m := range []string{"regret", "underestimation", "regret_under"} {
				a, b := fw.Policies[0].Final[m], fa.Policies[0].Final[m]
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("%s of A moved when B and C joined:\n%v\n%v", m, a, b)
				}
			}
			if fmt.Sprint(fw.Policies[0].Final["regret"]) == fmt.Sprint(fw.Policies[1].Final["regret"]) {
				t.Errorf("A and B have the same regret: the test cannot tell policies apart")
			}

			var parts []string
			for i := range 4 {
				parts = append(parts, runTo(t, dir, fmt.Sprintf("part-%d.json", i), "--scenario", both, "--shard", fmt.Sprintf("%d/4", i)))
			}
			merged := filepath.Join(dir, "merged.json")
			if _, stderr, code := bench(t, append([]string{"merge", "--out", merged}, parts...)...); code != 0 {
				t.Fatalf("merge: exit %d\n%s", code, stderr)
			}
			if a, b := comparable(t, merged), comparable(t, whole); a != b {
				t.Errorf("shards merged differ from the unsharded run:\n%s\nwant\n%s", a, b)
			}
		})
	}
}

// TestChangingRecorded: the results file records the changes, so that a
// gate refuses to pair runs of different environments and merge refuses
// their shards.
func TestChangingRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := func(name, changes string) string {
		return writeFile(t, name, `name: rec
environment: {family: bernoulli, means: [0.9, 0.1], `+changes+`}
horizon: 100
runs: 4
seed: 3
policies: [{plugin: ucb1}]
`)
	}
	a := runTo(t, dir, "a.json", "--scenario", sc("a.yaml", "changes: [{at: 50, means: [0.1, 0.9]}]"))
	b := runTo(t, dir, "b.json", "--scenario", sc("b.yaml", "changes: [{at: 51, means: [0.1, 0.9]}]"))
	fa := readResults(t, a)
	if got := fmt.Sprint(fa.Scenario.Changes); got != "[{50 [0.1 0.9]}]" {
		t.Errorf("recorded changes %s", got)
	}
	d := results.Only(fa.Scenario.Diff(readResults(t, b).Scenario), results.ExperimentFields...)
	if len(d) != 1 || d[0].Field != "changes" {
		t.Errorf("Diff = %+v, want changes", d)
	}
	stdout, stderr, code := bench(t, "--scenario", sc("b2.yaml", "changes: [{at: 51, means: [0.1, 0.9]}]"), "-q", "--baseline", a)
	if code == 0 || !strings.Contains(stdout+stderr, "changes") {
		t.Errorf("gate against another environment: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
