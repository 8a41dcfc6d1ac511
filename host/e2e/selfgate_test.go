package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// The project's own gate (make gate, run by .ci/run).
var (
	ciGate     = filepath.Join("..", "..", "testdata", "ci", "gate.yaml")
	ciBaseline = filepath.Join("..", "..", "testdata", "ci", "baseline.json")
)

// TestSelfGate: the committed baseline is what the shipped plugins compute
// now ("same" for every policy run), and the gate as make gate calls it
// fails with exit 1 naming the policy when a plugin's behaviour changes,
// here through its parameters. Two policies each, to keep the test short;
// .ci/run gates them all.
func TestSelfGate(t *testing.T) {
	t.Parallel()
	gateArgs := []string{"--baseline", ciBaseline, "--margin", "0", "--require-same", "-q"}
	stdout, stderr, code := bench(t, append([]string{"--scenario", ciGate, "--policy", "ReMax c2=2", "--policy", "TS"}, gateArgs...)...)
	if code != 0 {
		t.Fatalf("unchanged plugins: exit %d, want 0 (regenerate the baseline with make baseline if a change was intended)\n%s\n%s", code, stdout, stderr)
	}
	v := verdicts(t, stdout)
	if v["ReMax c2=2"] != "same" || v["TS"] != "same" || len(v) != 2 {
		t.Errorf("unchanged plugins: verdicts %v, want same for both", v)
	}

	spec, err := os.ReadFile(ciGate)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(spec), "params: {variance_inflation: 2}", "params: {variance_inflation: 2.5}", 1)
	if changed == string(spec) {
		t.Fatalf("%s no longer has ReMax c2=2's parameters: update this test", ciGate)
	}
	stdout, stderr, code = bench(t, append([]string{"--scenario", writeFile(t, "gate.yaml", changed), "--policy", "ReMax c2=2", "--policy", "TS"}, gateArgs...)...)
	if code != 1 || !strings.Contains(stderr, `"ReMax c2=2"`) || strings.Contains(stderr, `"TS"`) {
		t.Errorf("ReMax c2=2 changed: exit %d, want 1 naming it alone\n%s", code, stderr)
	}
	if v := verdicts(t, stdout); v["ReMax c2=2"] == "same" || v["TS"] != "same" {
		t.Errorf("ReMax c2=2 changed: verdicts %v", v)
	}
}

// TestRequireSame: a policy that got better passes a plain gate (exit 0)
// but fails with --require-same (exit 1), and so does one that is new.
func TestRequireSame(t *testing.T) {
	t.Parallel()
	base, err := results.ReadFile(ciBaseline)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := results.ReadFile(ciBaseline)
	if err != nil {
		t.Fatal(err)
	}
	p := cur.Policy("TS")
	for i := range p.Final["regret"] {
		p.Final["regret"][i] *= 0.5 // far better, in every replication
	}
	dir := t.TempDir()
	basePath, curPath := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	if err := base.WriteFile(basePath); err != nil {
		t.Fatal(err)
	}
	if err := cur.WriteFile(curPath); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := bench(t, "gate", basePath, curPath, "--margin", "0")
	if code != 0 || verdicts(t, stdout)["TS"] != "better" {
		t.Fatalf("better without --require-same: exit %d, verdicts %v, want 0 and better\n%s", code, verdicts(t, stdout), stderr)
	}
	_, stderr, code = bench(t, "gate", basePath, curPath, "--margin", "0", "--require-same")
	if code != 1 || !strings.Contains(stderr, `"TS" is better`) || !strings.Contains(stderr, "regenerate the baseline") {
		t.Errorf("better with --require-same: exit %d, want 1 naming TS\n%s", code, stderr)
	}

	// A policy only in the current file is a change too.
	extra := *cur.Policy("KL-UCB")
	extra.Label = "KL-UCB again"
	// Drop KL-UCB from the baseline (by label: it is not the last policy).
	kept := base.Policies[:0:0]
	for _, p := range base.Policies {
		if p.Label != "KL-UCB" {
			kept = append(kept, p)
		}
	}
	base.Policies = kept
	if err := base.WriteFile(basePath); err != nil {
		t.Fatal(err)
	}
	cur2 := *base
	cur2.Policies = append(append([]*results.Policy{}, base.Policies...), &extra)
	if err := cur2.WriteFile(curPath); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = bench(t, "gate", basePath, curPath, "--margin", "0", "--require-same")
	if code != 1 || !strings.Contains(stderr, `"KL-UCB again" is new`) {
		t.Errorf("new policy with --require-same: exit %d, want 1 naming it\n%s", code, stderr)
	}
}
