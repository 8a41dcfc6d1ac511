package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

const ctxPolicies = "horizon: 100\nruns: 3\npolicies: [{plugin: linucb}]\n"

// TestContextParses: each form of the context block parses, with its arms,
// dimension, family and rows.
func TestContextParses(t *testing.T) {
	for _, c := range []struct {
		name, yaml        string
		k, d, width, rows int
		family            sdk.Family
	}{
		{"dataset", "context: {dataset: iris}\n", 3, 4, 4, 150, sdk.Bernoulli},
		{"linear", "context: {model: linear_gaussian, arms: 5, dim: 3, noise_sd: 0.1}\n", 5, 3, 3, 0, sdk.Gaussian},
		{"logistic per arm", "context: {model: logistic_bernoulli, arms: 4, dim: 2, per_arm: true}\n", 4, 2, 8, 0, sdk.Bernoulli},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(c.yaml+ctxPolicies))
			if err != nil {
				t.Fatal(err)
			}
			if !s.Contextual() || s.K() != c.k || s.Context.D() != c.d || s.Context.Width() != c.width ||
				s.Context.Rows() != c.rows || s.Family() != c.family || s.InitPulls != 0 {
				t.Errorf("K %d D %d width %d rows %d family %s init_pulls %d", s.K(), s.Context.D(), s.Context.Width(), s.Context.Rows(), s.Family(), s.InitPulls)
			}
			out, err := s.YAML()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(out), "environment") {
				t.Errorf("YAML() writes an environment:\n%s", out)
			}
			if _, err := Parse("x.yaml", out); err != nil {
				t.Errorf("YAML() does not parse back: %v\n%s", err, out)
			}
		})
	}
}

// TestContextRefuses: every refusal names the file and the field at fault.
func TestContextRefuses(t *testing.T) {
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"both", "context: {dataset: iris}\nenvironment: {means: [1, 2], noise_sd: 1}\n" + ctxPolicies,
			"scenario x.yaml: environment: give context (a contextual scenario) or environment"},
		{"feedback", "context: {dataset: iris}\nfeedback: {delay: 3}\n" + ctxPolicies, "scenario x.yaml: feedback: not allowed in a contextual scenario"},
		{"policy feedback", "context: {dataset: iris}\nhorizon: 10\nruns: 1\npolicies: [{plugin: a, feedback: {batch: 2}}]\n",
			"policies[0].feedback: not allowed in a contextual scenario"},
		{"init_pulls", "context: {dataset: iris}\ninit_pulls: 1\n" + ctxPolicies, "scenario x.yaml: init_pulls: must be 0"},
		{"horizon", "context: {dataset: iris}\nhorizon: 151\nruns: 1\npolicies: [{plugin: a}]\n", "horizon: 151 is more than the 150 rows of context.dataset (iris)"},
		{"unknown dataset", "context: {dataset: nope}\n" + ctxPolicies, "context.dataset: no shipped dataset \"nope\""},
		{"none", "context: {}\n" + ctxPolicies, "scenario x.yaml: context: give one of dataset"},
		{"two", "context: {dataset: iris, model: linear_gaussian}\n" + ctxPolicies, "context: give one of dataset, dataset_file and model"},
		{"dataset arms", "context: {dataset: iris, arms: 3}\n" + ctxPolicies, "context.arms: only for a model"},
		{"model", "context: {model: tree, arms: 2, dim: 2}\n" + ctxPolicies, "context.model: unknown model \"tree\""},
		{"arms", "context: {model: logistic_bernoulli, arms: 1, dim: 2}\n" + ctxPolicies, "context.arms: must be >= 2"},
		{"dim", "context: {model: logistic_bernoulli, arms: 2}\n" + ctxPolicies, "context.dim: must be >= 1"},
		{"noise", "context: {model: linear_gaussian, arms: 2, dim: 2}\n" + ctxPolicies, "context.noise_sd: must be a finite number > 0"},
		{"logistic noise", "context: {model: logistic_bernoulli, arms: 2, dim: 2, noise_sd: 1}\n" + ctxPolicies, "context.noise_sd: must be absent"},
		{"unknown key", "context: {dataset: iris, rows: 3}\n" + ctxPolicies, "unknown key \"context.rows\""},
		{"missing file", "context: {dataset_file: nothere.csv}\n" + ctxPolicies, "context.dataset_file: dataset file nothere.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %q", err, c.want)
			}
		})
	}
	if _, err := Parse("embedded:x", []byte("context: {dataset_file: a.csv}\n"+ctxPolicies)); err == nil ||
		!strings.Contains(err.Error(), "a shipped scenario cannot name a private dataset file") {
		t.Errorf("embedded dataset_file: %v", err)
	}
}

// TestContextPrivateFile: a private file is found relative to the
// scenario file, its labels mapped in increasing order, and SetHorizon
// holds the horizon to its rows.
func TestContextPrivateFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "a,b,class\n1,2,7\n3,4,9\n5,6,7\n0.5,1e3,8\n"
	if err := os.WriteFile(filepath.Join(dir, "data", "mine.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("context: {dataset_file: data/mine.csv}\nhorizon: 4\nruns: 2\npolicies: [{plugin: a}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.K() != 3 || s.Context.D() != 2 || s.Context.Rows() != 4 || s.Context.Path() != filepath.Join(dir, "data", "mine.csv") || len(s.Context.FileSHA256()) != 64 {
		t.Errorf("K %d D %d rows %d path %q sha %q", s.K(), s.Context.D(), s.Context.Rows(), s.Context.Path(), s.Context.FileSHA256())
	}
	if err := s.SetHorizon(5); err == nil || !strings.Contains(err.Error(), "horizon: 5 is more than the 4 rows of context.dataset_file (data/mine.csv)") {
		t.Errorf("SetHorizon(5): %v", err)
	}
}

// TestContextCost: a cost matrix parses and round-trips; every refusal
// names the file and the entry at fault.
func TestContextCost(t *testing.T) {
	s, err := Parse("x.yaml", []byte("context: {dataset: credit_g, cost: [[0, 0.2], [1, 0]]}\n"+ctxPolicies))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Context.Cost; len(got) != 2 || got[0][1] != 0.2 || got[1][0] != 1 || s.Family() != sdk.Bernoulli {
		t.Errorf("cost %v family %s", got, s.Family())
	}
	out, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("x.yaml", out)
	if err != nil || len(back.Context.Cost) != 2 || back.Context.Cost[0][1] != 0.2 {
		t.Errorf("YAML() round trip: %v\n%s", err, out)
	}
	// A diagonal that is not 0 is allowed (any costs, as in the
	// cost-sensitive setting), and so is a row with equal costs.
	if _, err := Parse("x.yaml", []byte("context: {dataset: credit_g, cost: [[0.5, 0.5], [0.3, 0.1]]}\n"+ctxPolicies)); err != nil {
		t.Errorf("a nonzero diagonal: %v", err)
	}

	for _, c := range []struct {
		name, context, want string
	}{
		{"rows", "{dataset: iris, cost: [[0, 1, 1], [1, 0, 1]]}",
			"scenario x.yaml: context.cost: 2 rows, want 3: one per class of context.dataset iris (in order: 0 setosa, 1 versicolor, 2 virginica)"},
		{"columns", "{dataset: credit_g, cost: [[0, 1], [1, 0, 0]]}", "scenario x.yaml: context.cost[1]: 3 values, want 2: one per arm (class) (in order: 0 good, 1 bad)"},
		{"above 1", "{dataset: credit_g, cost: [[0, 5], [1, 0]]}", "scenario x.yaml: context.cost[0][1]: 5 is not a cost in [0, 1]"},
		{"negative", "{dataset: credit_g, cost: [[0, 1], [-0.5, 0]]}", "scenario x.yaml: context.cost[1][0]: -0.5 is not a cost in [0, 1]"},
		{"nan", "{dataset: credit_g, cost: [[0, 1], [1, .nan]]}", "scenario x.yaml: context.cost[1][1]: NaN is not a cost in [0, 1]"},
		{"inf", "{dataset: credit_g, cost: [[.inf, 1], [1, 0]]}", "scenario x.yaml: context.cost[0][0]: +Inf is not a cost in [0, 1]"},
		{"null", "{dataset: credit_g, cost: [[0, 1], [~, 0]]}", "scenario x.yaml: context.cost[1][0]: null is not a cost"},
		{"string", "{dataset: credit_g, cost: [[0, 1], [one, 0]]}", "context.cost[1][0]: expected number, got string \"one\""},
		{"not a matrix", "{dataset: credit_g, cost: [0, 1]}", "context.cost[0]: expected a list, got int 0"},
		{"constant", "{dataset: credit_g, cost: [[0.5, 0.5], [1, 1]]}", "scenario x.yaml: context.cost: every row is constant"},
		{"model", "{model: logistic_bernoulli, arms: 2, dim: 2, cost: [[0, 1], [1, 0]]}", "scenario x.yaml: context.cost: only for a dataset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte("context: "+c.context+"\n"+ctxPolicies))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %q", err, c.want)
			}
		})
	}
}

// TestContextCostPrivateFile: a private file's cost matrix is checked
// against its classes, named by their labels as written.
func TestContextCostPrivateFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.csv"), []byte("1,2,7\n3,4,9\n5,6,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("context: {dataset_file: mine.csv, cost: [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}\nhorizon: 3\nruns: 1\npolicies: [{plugin: a}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if want := "context.cost: 3 rows, want 2: one per class of context.dataset_file mine.csv (in order: 0 7, 1 9)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %q", err, want)
	}
}
