package run_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/report/reporttest"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
)

// constSession pulls arm 0 every round, whatever the context.
type constSession struct{ arms []int32 }

func (s *constSession) Step(context.Context, *client.Step) (client.StepResult, error) {
	return client.StepResult{Arms: s.arms}, nil
}
func (s *constSession) Close(context.Context) error { return nil }

type constConn struct{ argmax }

func (constConn) Open(_ context.Context, req *client.OpenRequest) (client.SessionConn, error) {
	return &constSession{arms: make([]int32, len(req.Replications))}, nil
}

// argmaxOrConst launches the plugin "argmax" as argmax and "const" as a
// policy that always pulls arm 0.
func argmaxOrConst(_ context.Context, p scenario.Policy) (*engine.Plugin, error) {
	var c client.Conn = argmax{}
	if p.Plugin == "const" {
		c = constConn{}
	}
	d, _ := c.Describe(context.Background())
	return &engine.Plugin{Conn: c, Desc: d}, nil
}

// argmaxDataset writes a private dataset of n rows and 3 features whose
// label is the index of the largest feature: argmax plays it without
// regret. Each column holds the same values 0 … n-1 in another order, so
// that standardising the columns maps them alike and keeps the argmax.
func argmaxDataset(t *testing.T, dir string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		x := []int{i, (7*i + 3) % n, (11*i + 5) % n}
		best := 0
		for a := 1; a < 3; a++ {
			if x[a] > x[best] {
				best = a
			}
		}
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", x[0], x[1], x[2], best)
	}
	if err := os.WriteFile(filepath.Join(dir, "argmax.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestContextualGate: the gate and the sequential gate judge a contextual
// results file as they judge a context-free one. A policy that got worse
// (the same label, now pulling arm 0 whatever the context, where it made
// no mistake before) is a regression for the fixed-sample gate and for
// the sequential gate, which stops it at its first look; an unchanged one
// is not. The files are real runs of a contextual scenario, in process;
// hand-built files (reporttest) check the same on a shipped dataset's
// shape.
func TestContextualGate(t *testing.T) {
	dir := t.TempDir()
	argmaxDataset(t, dir, 300)
	scen := func(plugin string) *scenario.Scenario {
		src := fmt.Sprintf("name: gated\ncontext: {dataset_file: argmax.csv}\nhorizon: 200\nruns: 12\nseed: 5\npolicies: [{plugin: argmax, label: Same}, {plugin: %s, label: P}]\n", plugin)
		path := filepath.Join(dir, "gated.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	base, err := engine.Run(context.Background(), scen("argmax"), engine.Options{Launch: argmaxOrConst})
	if err != nil {
		t.Fatal(err)
	}
	if m := base.Policies[1].Regret.Mean; m[len(m)-1] != 0 {
		t.Fatalf("argmax has regret %v on its own dataset; the dataset is not what the test means", m)
	}
	cur, err := engine.Run(context.Background(), scen("const"), engine.Options{Launch: argmaxOrConst})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	opt := gate.DefaultOptions
	opt.Looks = 3
	seq, err := run.Sequential(context.Background(), scen("const"), engine.Options{Launch: argmaxOrConst}, base, opt, &stderr)
	if err != nil {
		t.Fatalf("sequential: %v\n%s", err, stderr.String())
	}
	good := reporttest.Contextual("wine", 12, 100, reporttest.ContextualPolicies[:3]...)
	worse := reporttest.ContextualPolicies[:3]
	worse = append(worse[:0:0], worse...)
	worse[1].Err = 0.35 // Greedy
	bad := reporttest.Contextual("wine", 12, 100, worse...)
	for _, tc := range []struct {
		name      string
		base, cur *results.File
		looks     int
		worse     string // the label caught
		same      []string
		wantLooks bool
	}{
		{"run, fixed", base, cur, 0, "P", []string{"Same"}, false},
		{"run, sequential", base, seq, 3, "P", []string{"Same"}, true},
		{"by hand, fixed", good, bad, 0, "Greedy", []string{"LinUCB", "Uniform"}, false},
		{"by hand, sequential", good, bad, 3, "Greedy", []string{"LinUCB", "Uniform"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := gate.DefaultOptions
			o.Looks = tc.looks
			rep, err := gate.Compare(tc.base, tc.cur, o)
			if err != nil {
				t.Fatal(err)
			}
			if (rep.Looks != nil) != tc.wantLooks {
				t.Errorf("looks %v, want a sequential gate: %v", rep.Looks, tc.wantLooks)
			}
			reg := rep.Regressions()
			if len(reg) != 1 || reg[0].Label != tc.worse {
				t.Errorf("regressions %+v, want %s alone", reg, tc.worse)
			}
			for _, r := range rep.Rows {
				for _, l := range tc.same {
					if r.Label == l && r.Verdict == gate.Worse {
						t.Errorf("%s judged worse", l)
					}
				}
			}
		})
	}
	// The sequential run stopped P at its first look: it played fewer
	// replications than the scenario's.
	if p := seq.Policy("P"); p == nil || p.Replications == 0 || p.Replications >= 12 {
		t.Errorf("sequential run: P played %v replications, want fewer than 12", p.Replications)
	}
}
