package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/roundslog"
	"github.com/regretbench/regretbench/host/scenario"
)

// logRun runs sc with the in-test plugins const and sign in batches of
// batch, with a rounds log when log, and returns the results and the
// log's bytes.
func logRun(t *testing.T, sc *scenario.Scenario, batch int, log bool) (*results.File, []byte) {
	t.Helper()
	conns := map[string]*ctxConn{"const": {desc: ctxDesc, policy: constant}, "sign": {desc: ctxDesc, policy: signPolicy}}
	opts := engine.Options{Launch: launcher(conns), Batch: batch, Jobs: 2}
	dir := t.TempDir()
	if log {
		sp, err := roundslog.NewSpool(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Remove()
		defer sp.Close()
		opts.RoundsLog = sp
	}
	f, err := engine.Run(context.Background(), sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !log {
		return f, nil
	}
	path := filepath.Join(dir, "rounds.csv.gz")
	if err := opts.RoundsLog.Write(path, []string{"Const", "Sign"}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, raw
}

// TestRoundsLog: the rounds log of a contextual run is the same bytes for
// every batch size, does not change the results, and says what happened:
// each replication plays distinct dataset rows, a record's reward is 1
// exactly when its class is the row's label (in a sealed run too, where
// class undoes the relabelling and differs from the arm played), its
// regret is the oracle's expected reward less the arm's, the arms and
// probabilities are the policy's, and the regrets of a replication sum to
// its final regret in the results.
func TestRoundsLog(t *testing.T) {
	wine, err := dataset.Load("wine")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, ctx, seed string }{
		{"dataset", "{dataset: wine}", "4"},
		{"sealed", "{dataset: wine}", "\"0x" + strings.Repeat("3c", 32) + "\""},
		{"model", "{model: logistic_bernoulli, arms: 4, dim: 3}", "4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := parse(t, fmt.Sprintf("context: %s\nhorizon: 120\nruns: 9\nseed: %s\npolicies: [{plugin: const, label: Const}, {plugin: sign, label: Sign}]\n", c.ctx, c.seed))
			plain, _ := logRun(t, sc, 0, false)
			f, ref := logRun(t, sc, 0, true)
			for _, batch := range []int{1, 4} {
				if _, raw := logRun(t, sc, batch, true); !bytes.Equal(raw, ref) {
					t.Errorf("batch %d: the log differs from the default batches'", batch)
				}
			}
			for i, p := range f.Policies {
				for _, name := range f.MetricNames() {
					if !slices.Equal(p.Final[name], plain.Policies[i].Final[name]) {
						t.Errorf("%s %s differs with the log", p.Label, name)
					}
				}
			}
			path := filepath.Join(t.TempDir(), "r.csv.gz")
			os.WriteFile(path, ref, 0o600)
			type key struct {
				p   string
				rep uint64
			}
			regret := map[key]float64{}
			rows := map[key]map[int]bool{}
			n, relabelled := 0, 0
			err := roundslog.ReadFile(path, func(r *roundslog.Record) error {
				k := key{r.Policy, r.Replication}
				wantP, wantRep, wantT := []string{"Const", "Sign"}[n/(9*120)], uint64(n/120%9), n%120+1
				n++
				if r.Policy != wantP || r.Replication != wantRep || r.T != wantT {
					return fmt.Errorf("record %d is %s replication %d round %d, want %s %d %d", n, r.Policy, r.Replication, r.T, wantP, wantRep, wantT)
				}
				regret[k] += r.Regret
				if r.Policy == "Const" && (r.Arm != 0 || r.Prob != 1) || r.Policy == "Sign" && !math.IsNaN(r.Prob) {
					return fmt.Errorf("record %d: %s played arm %d with probability %v", n, r.Policy, r.Arm, r.Prob)
				}
				if r.Class != r.Arm {
					relabelled++
				}
				if c.name == "model" {
					if r.Row != -1 || r.Class != r.Arm || r.Regret < 0 || r.Oracle < r.Regret || r.Oracle > 1 {
						return fmt.Errorf("record %d: %+v: want row -1, class = arm, 0 <= regret <= oracle <= 1", n, r)
					}
					return nil
				}
				if rows[k] == nil {
					rows[k] = map[int]bool{}
				}
				if r.Row < 0 || r.Row >= wine.N || rows[k][r.Row] {
					return fmt.Errorf("record %d: row %d out of range or seen before in its replication", n, r.Row)
				}
				rows[k][r.Row] = true
				right := r.Class == wine.Y[r.Row]
				if right != (r.Reward == 1) || r.Oracle != 1 || r.Regret != r.Oracle-r.Reward {
					return fmt.Errorf("record %d: %+v: class %d, label %d", n, r, r.Class, wine.Y[r.Row])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != 2*9*120 {
				t.Fatalf("%d records, want %d", n, 2*9*120)
			}
			if sealed := c.name == "sealed"; sealed != (relabelled > 0) {
				t.Errorf("%d records of %d have class != arm; want some exactly in the sealed run", relabelled, n)
			}
			for _, p := range f.Policies {
				for i, g := range p.Final[metric.Regret] {
					if s := regret[key{p.Label, uint64(i)}]; math.Abs(s-g) > 1e-9*max(1, g) {
						t.Errorf("%s replication %d: the log's regrets sum to %v, the results say %v", p.Label, i, s, g)
					}
				}
			}
		})
	}
}

// TestRoundsLogRefusesContextFree: a rounds log on a context-free
// scenario is bad input, refused before any session opens.
func TestRoundsLogRefusesContextFree(t *testing.T) {
	sp, err := roundslog.NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Remove()
	conns := map[string]*ctxConn{"const": {desc: ctxDesc, policy: constant}}
	sc := parse(t, "environment: {means: [0.5, 0.4], noise_sd: 1}\nhorizon: 10\nruns: 2\npolicies: [{plugin: const}]\n")
	_, err = engine.Run(context.Background(), sc, engine.Options{Launch: launcher(conns), RoundsLog: sp})
	if !errors.Is(err, engine.ErrInput) || !strings.Contains(err.Error(), "the scenario has no context block") || conns["const"].opens != 0 {
		t.Errorf("got %v after %d sessions, want ErrInput before any", err, conns["const"].opens)
	}
}

// BenchmarkRoundsLog measures what a rounds log costs the host per
// replication-round (ns/replication-round, against the same run without
// it in BenchmarkContextualHost) and on disk (bytes/record): letter
// (K = 26), 100 replications x 2000 rounds in two sessions, an
// in-process policy that plays an arm of the context with a probability
// of its own, as SquareCB's vary.
//
//	go test ./host/engine -run x -bench RoundsLog
func BenchmarkRoundsLog(b *testing.B) {
	sc, err := scenario.Parse("bench.yaml", []byte("context: {dataset: letter}\nhorizon: 2000\nruns: 100\nseed: 1\npolicies: [{plugin: c, label: SquareCB}]\n"))
	if err != nil {
		b.Fatal(err)
	}
	pol := func(t int, x []float64, k int) (int32, float64) {
		a := int32((math.Float64bits(x[0]) >> 20) % uint64(k))
		return a, 0.5 + 0.5*math.Abs(math.Tanh(x[1]))
	}
	conns := map[string]*ctxConn{"c": {desc: ctxDesc, policy: pol}}
	dir := b.TempDir()
	path := filepath.Join(dir, "rounds.csv.gz")
	b.ResetTimer()
	for range b.N {
		sp, err := roundslog.NewSpool(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: launcher(conns), Batch: 50, RoundsLog: sp}); err != nil {
			b.Fatal(err)
		}
		if err := sp.Write(path, []string{"SquareCB"}); err != nil {
			b.Fatal(err)
		}
		sp.Close()
		sp.Remove()
	}
	b.StopTimer()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(100*2000), "ns/replication-round")
	b.ReportMetric(float64(fi.Size())/float64(100*2000), "bytes/record")
}
