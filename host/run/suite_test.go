package run_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
)

// argmax is an in-test contextual plugin: it pulls the arm of the
// largest of the context's first K values (arm 0 when the context is
// narrower), and says nothing of probabilities.
type argmax struct{}

func (argmax) Describe(context.Context) (*client.Description, error) {
	return &client.Description{Name: "argmax", Version: "1", ProtocolVersion: 3, Contextual: true}, nil
}
func (argmax) Close() error { return nil }
func (argmax) Open(_ context.Context, req *client.OpenRequest) (client.SessionConn, error) {
	return &argmaxSession{k: req.Arms, w: req.Context.Width(req.Arms), arms: make([]int32, len(req.Replications))}, nil
}

type argmaxSession struct {
	k, w int
	arms []int32
}

func (s *argmaxSession) Step(_ context.Context, st *client.Step) (client.StepResult, error) {
	for i := range s.arms {
		x := st.Contexts[i*s.w : (i+1)*s.w]
		best := 0
		for a := 1; a < min(s.k, len(x)); a++ {
			if x[a] > x[best] {
				best = a
			}
		}
		s.arms[i] = int32(best)
	}
	return client.StepResult{Arms: s.arms}, nil
}
func (s *argmaxSession) Close(context.Context) error { return nil }

func argmaxLauncher(context.Context, scenario.Policy) (*engine.Plugin, error) {
	c := argmax{}
	d, _ := c.Describe(context.Background())
	return &engine.Plugin{Conn: c, Desc: d}, nil
}

// TestSuiteScenarios: the contextual suite is every shipped contextual
// scenario and nothing else, and a horizon beyond a dataset's rows is
// lowered to them.
func TestSuiteScenarios(t *testing.T) {
	h := 500
	scens, err := run.SuiteScenarios(run.SuiteContextual, run.Overrides{Horizon: &h}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range scenario.Shipped() {
		if strings.HasPrefix(n, "contextual_") {
			names = append(names, n)
		}
	}
	if len(scens) != len(names) || len(names) < 12 {
		t.Fatalf("%d scenarios in the suite, %d shipped contextual ones", len(scens), len(names))
	}
	for i, sc := range scens {
		want := 500
		if sc.Context.IsDataset() {
			want = min(500, sc.Context.Rows())
		}
		if sc.Name != names[i] || !sc.Contextual() || sc.Horizon != want {
			t.Errorf("%s: contextual %v, horizon %d, want %s with horizon %d", sc.Name, sc.Contextual(), sc.Horizon, names[i], want)
		}
	}
	var ie *run.InputError
	if _, err := run.SuiteScenarios("nope", run.Overrides{}, nil, nil); !errors.As(err, &ie) || !strings.Contains(err.Error(), `unknown suite "nope" (suites: contextual)`) {
		t.Errorf("unknown suite: %v", err)
	}
}

// TestSuitePlays: the suite plays every contextual scenario, prints each
// one's tables, the suite's table of pv_loss, the bake-off and the mean
// ranks, and writes a results file per scenario that reads back with its
// pv_loss, each one's reports and figures, and the suite's (WriteSuite).
func TestSuitePlays(t *testing.T) {
	runs, h := 3, 40
	dir := t.TempDir()
	var out, errb bytes.Buffer
	played, err := run.Suite(context.Background(), run.SuiteRequest{
		Host:  run.Host{Stdout: &out, Stderr: &errb, Quiet: true},
		Suite: run.SuiteContextual, Overrides: run.Overrides{Runs: &runs, Horizon: &h},
		Dir: dir, Formats: []string{"svg"}, Jobs: 2, Launch: argmaxLauncher, StepTimeout: time.Minute, StartTimeout: time.Minute,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(jsons) != len(played.Files) || len(jsons) < 12 {
		t.Fatalf("%d results files written for %d scenarios", len(jsons), len(played.Files))
	}
	for _, name := range []string{"index.html", "suite.txt", "suite.md", "suite.csv", "bakeoff.csv", "suite.tex"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the suite's %s: %v", name, err)
		}
	}
	for _, f := range played.Files {
		back, err := results.ReadFile(filepath.Join(dir, f.Scenario.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range back.Policies {
			if p.Status != results.StatusOK || len(p.Final[metric.PVLoss]) != runs {
				t.Errorf("%s %s: status %s, %d pv_loss values", f.Scenario.Name, p.Label, p.Status, len(p.Final[metric.PVLoss]))
			}
		}
		if !strings.Contains(out.String(), f.Scenario.Name) {
			t.Errorf("stdout does not name %s", f.Scenario.Name)
		}
		for _, ext := range []string{".txt", ".tex", "_regret.svg", "_pv_loss.svg"} {
			if _, err := os.Stat(filepath.Join(dir, f.Scenario.Name+ext)); err != nil {
				t.Errorf("%s: %v", f.Scenario.Name, err)
			}
		}
	}
	if !strings.Contains(out.String(), "Final pv_loss per policy and scenario") || !strings.Contains(out.String(), "LinUCB") ||
		!strings.Contains(out.String(), "significantly better minus") || !strings.Contains(out.String(), "Mean ranks across scenarios") {
		t.Errorf("no suite table on stdout:\n%s", out.String())
	}
}

// TestSuiteWins: the suite's bake-off (compare.NewBakeoff) counts, for
// each ordered pair, the scenarios where the row's policy is
// significantly better: a policy
// that is right every round beats one that is always wrong on every
// scenario, and never the other way round.
func TestSuiteWins(t *testing.T) {
	mk := func(name string, good, bad []float64) *results.File {
		f := &results.File{Scenario: results.Scenario{Name: name, Horizon: 10, Runs: len(good), Checkpoints: []int{10}}}
		for _, c := range []struct {
			label string
			final []float64
		}{{"Good", good}, {"Bad", bad}} {
			p := &results.Policy{Label: c.label, Status: results.StatusOK}
			m := map[string][][]float64{}
			for _, n := range metric.Names {
				m[n] = [][]float64{c.final}
			}
			pv := make([]float64, len(c.final))
			for i, x := range c.final {
				pv[i] = x / 10
			}
			m[metric.PVLoss] = [][]float64{pv}
			p.Summarize([]int{10}, m, nil, false)
			f.Policies = append(f.Policies, p)
		}
		return f
	}
	files := []*results.File{
		mk("a", []float64{1, 2, 1, 0, 1, 2}, []float64{9, 8, 9, 10, 9, 8}),
		mk("b", []float64{0, 1, 0, 1, 0, 1}, []float64{7, 9, 8, 9, 7, 8}),
	}
	tabs := run.SuiteTables(files)
	if len(tabs) != 2 {
		t.Fatalf("%d suite tables, want the pv_loss table and the bake-off", len(tabs))
	}
	if w := tabs[1]; w.Name != "bakeoff" || len(w.Rows) != 2 || w.Rows[0][2] != "+2 (2/0)" || w.Rows[1][1] != "-2 (0/2)" || w.Rows[0][1] != "" {
		t.Errorf("rows %v, want Good beating Bad on both scenarios", w.Rows)
	}
	if s := tabs[0]; s.Name != "suite" || len(s.Rows) != 2 || s.Rows[0][0] != "Good" || !strings.Contains(s.Rows[0][1], "±") {
		t.Errorf("pv_loss table %v", s.Rows)
	}
}

// TestResumeContextual: a contextual run's results file is resumed with
// every policy kept (same context, same streams), and refused for another
// dataset.
func TestResumeContextual(t *testing.T) {
	parseCtx := func(ds string) *scenario.Scenario {
		sc, err := scenario.Parse("test.yaml", []byte("name: c\ncontext: {dataset: "+ds+"}\nhorizon: 100\nruns: 3\nseed: 2\npolicies: [{plugin: a, label: A}, {plugin: b, label: B}]\n"))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	sc := parseCtx("iris")
	f, err := engine.Run(context.Background(), sc, engine.Options{Launch: argmaxLauncher})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.json")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	kept, err := run.Resume(context.Background(), path, sc, shardNone, argmaxLauncher, &stderr, nil)
	if err != nil || kept == nil || len(kept.Policies) != 2 {
		t.Fatalf("resume: %v, %v; stderr:\n%s", kept, err, stderr.String())
	}
	if _, err := run.Resume(context.Background(), path, parseCtx("wine"), shardNone, argmaxLauncher, &stderr, nil); err == nil || !strings.Contains(err.Error(), "context") {
		t.Errorf("resume on another dataset: %v", err)
	}
}
