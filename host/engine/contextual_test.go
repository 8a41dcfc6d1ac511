package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/client"
)

// ctxConn is an in-test contextual plugin: a client.Conn whose sessions
// play a policy of the contexts, and which records every context it saw
// by replication and round.
type ctxConn struct {
	desc   client.Description
	policy func(t int, x []float64, k int) (int32, float64)
	opens  int

	mu   sync.Mutex
	seen map[[2]uint64][]float64 // {replication, round} -> context
}

func (c *ctxConn) Describe(context.Context) (*client.Description, error) { return &c.desc, nil }
func (c *ctxConn) Close() error                                          { return nil }
func (c *ctxConn) Open(_ context.Context, req *client.OpenRequest) (client.SessionConn, error) {
	c.mu.Lock()
	c.opens++
	c.mu.Unlock()
	if !req.Context.Contextual() {
		return nil, errors.New("a contextual test plugin opened without a context")
	}
	n := len(req.Replications)
	return &ctxSession{c: c, req: req, arms: make([]int32, n), probs: make([]float64, n)}, nil
}

type ctxSession struct {
	c     *ctxConn
	req   *client.OpenRequest
	arms  []int32
	probs []float64
}

func (s *ctxSession) Step(_ context.Context, st *client.Step) (client.StepResult, error) {
	w := s.req.Context.Width(s.req.Arms)
	if len(st.Contexts) != w*len(s.arms) {
		return client.StepResult{}, fmt.Errorf("round %d: %d context values for %d replications of width %d", st.Round, len(st.Contexts), len(s.arms), w)
	}
	anyProb := false
	for i := range s.arms {
		x := st.Contexts[i*w : (i+1)*w]
		s.arms[i], s.probs[i] = s.c.policy(st.Round, x, s.req.Arms)
		anyProb = anyProb || s.probs[i] != 0
		if s.c.seen != nil {
			s.c.mu.Lock()
			s.c.seen[[2]uint64{s.req.Replications[i], uint64(st.Round)}] = slices.Clone(x)
			s.c.mu.Unlock()
		}
	}
	res := client.StepResult{Arms: s.arms}
	if anyProb {
		res.Probs = s.probs
	}
	return res, nil
}

func (s *ctxSession) Close(context.Context) error { return nil }

var ctxDesc = client.Description{Name: "ctx", Version: "1", ProtocolVersion: 3, Contextual: true}

// constant pulls arm 0 and says so with probability 1.
func constant(int, []float64, int) (int32, float64) { return 0, 1 }

// signPolicy's arm depends on the context: its arms differ from constant's.
func signPolicy(_ int, x []float64, k int) (int32, float64) {
	if x[0] > 0 {
		return int32(k - 1), 0
	}
	return 0, 0
}

// launcher serves each plugin name from conns.
func launcher(conns map[string]*ctxConn) engine.Launcher {
	return func(_ context.Context, p scenario.Policy) (*engine.Plugin, error) {
		c, ok := conns[p.Plugin]
		if !ok {
			return nil, fmt.Errorf("%w: no plugin %q", engine.ErrInput, p.Plugin)
		}
		return &engine.Plugin{Conn: c, Desc: &c.desc}, nil
	}
}

const ctxScenario = `
name: ctxtest
context: %s
horizon: %d
runs: 9
seed: 4
policies:
  - {plugin: const, label: Const}
  - {plugin: sign, label: Sign}
`

func ctxRun(t *testing.T, ctxYAML string, T, batch int, seen bool) (*results.File, map[string]*ctxConn) {
	t.Helper()
	sc := parse(t, fmt.Sprintf(ctxScenario, ctxYAML, T))
	conns := map[string]*ctxConn{
		"const": {desc: ctxDesc, policy: constant},
		"sign":  {desc: ctxDesc, policy: signPolicy},
	}
	if seen {
		for _, c := range conns {
			c.seen = map[[2]uint64][]float64{}
		}
	}
	f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launcher(conns), Batch: batch, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	return f, conns
}

// TestContextualCommonContexts: every policy sees the same context in the
// same replication and round, and the per-replication results are the
// same bits whatever the batch size.
func TestContextualCommonContexts(t *testing.T) {
	for _, ctx := range []string{"{dataset: wine}", "{model: linear_gaussian, arms: 3, dim: 4, noise_sd: 0.5}",
		"{model: logistic_bernoulli, arms: 4, dim: 2, per_arm: true}"} {
		t.Run(ctx, func(t *testing.T) {
			ref, conns := ctxRun(t, ctx, 120, 0, true)
			a, b := conns["const"].seen, conns["sign"].seen
			if len(a) != 9*120 || len(b) != len(a) {
				t.Fatalf("%d and %d contexts seen, want %d", len(a), len(b), 9*120)
			}
			for k, x := range a {
				if !slices.Equal(x, b[k]) {
					t.Fatalf("replication %d round %d: the policies saw different contexts", k[0], k[1])
				}
			}
			for _, batch := range []int{1, 4, 9} {
				f, _ := ctxRun(t, ctx, 120, batch, false)
				for i, p := range f.Policies {
					for _, name := range append(metric.Names[:], metric.PVLoss) {
						if !slices.EqualFunc(p.Final[name], ref.Policies[i].Final[name], func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
							t.Errorf("batch %d: %s %s differs from the default batches", batch, p.Label, name)
						}
					}
					if !slices.Equal(p.PVLoss.Mean, ref.Policies[i].PVLoss.Mean) || p.Label == "Const" && *p.Probs != *ref.Policies[i].Probs {
						t.Errorf("batch %d: %s's series or probabilities differ", batch, p.Label)
					}
				}
			}
			if ref.Scenario.Context == nil || ref.Policies[0].Final[metric.Regret][0] == ref.Policies[1].Final[metric.Regret][0] {
				t.Errorf("no context recorded, or the two policies have the same regret")
			}
		})
	}
}

// TestContextualConstantRegret: a constant arm played over every row of a
// dataset has regret the number of rows of the other classes and pv_loss
// that over N, in every replication; underestimation is not computed (0)
// and regret_not_under is the regret. The probabilities reported are
// summarised, and none are recorded for a policy that reports none.
func TestContextualConstantRegret(t *testing.T) {
	d, err := dataset.Load("iris")
	if err != nil {
		t.Fatal(err)
	}
	other := 0
	for _, y := range d.Y {
		if y != 0 {
			other++
		}
	}
	f, _ := ctxRun(t, "{dataset: iris}", d.N, 0, false)
	p := f.Policies[0]
	for i, g := range p.Final[metric.Regret] {
		if g != float64(other) || p.Final[metric.PVLoss][i] != float64(other)/float64(d.N) ||
			p.Final[metric.Underestimation][i] != 0 || p.Final[metric.RegretUnder][i] != 0 || p.Final[metric.RegretNotUnder][i] != g {
			t.Fatalf("replication %d: regret %v pv_loss %v underestimation %v regret_not_under %v; want regret %d",
				i, g, p.Final[metric.PVLoss][i], p.Final[metric.Underestimation][i], p.Final[metric.RegretNotUnder][i], other)
		}
	}
	if pr := p.Probs; pr == nil || pr.Rounds != int64(9*d.N) || pr.Reported != pr.Rounds || pr.Min != 1 || pr.Mean != 1 {
		t.Errorf("probs %+v, want every round reported with 1", pr)
	}
	if f.Policies[1].Probs != nil {
		t.Errorf("a policy that reports no probability has probs %+v", f.Policies[1].Probs)
	}
}

// TestContextualRefusesPlugin: before any round, a contextual scenario
// refuses a plugin of protocol 2 or one that does not report contextual,
// and a context-free scenario a contextual_only one, naming the plugin and
// the scenario, as bad input.
func TestContextualRefusesPlugin(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		desc       client.Description
		want       string
	}{
		{"protocol 2", fmt.Sprintf(ctxScenario, "{dataset: iris}", 10), client.Description{Name: "old", ProtocolVersion: 2},
			"scenario test.yaml: policies[0] \"Const\": plugin const speaks protocol version 2, but the scenario is contextual"},
		{"not contextual", fmt.Sprintf(ctxScenario, "{dataset: iris}", 10), client.Description{Name: "old", ProtocolVersion: 3},
			"plugin const does not report contextual in its Describe"},
		{"contextual only", "environment: {means: [0.5, 0.4], noise_sd: 1}\nhorizon: 10\nruns: 2\npolicies: [{plugin: const, label: Const}]\n",
			client.Description{Name: "new", ProtocolVersion: 3, Contextual: true, ContextualOnly: true},
			"scenario test.yaml: policies[0] \"Const\": plugin const plays contextual scenarios only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conns := map[string]*ctxConn{"const": {desc: c.desc, policy: constant}, "sign": {desc: ctxDesc, policy: signPolicy}}
			_, err := engine.Run(context.Background(), parse(t, c.yaml), engine.Options{Launch: launcher(conns)})
			if err == nil || !errors.Is(err, engine.ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrInput with %q", err, c.want)
			}
			for name, conn := range conns {
				if conn.opens != 0 {
					t.Errorf("%s: %d sessions opened before the refusal", name, conn.opens)
				}
			}
		})
	}
}

// TestContextualBadProbability: a probability outside (0, 1] fails the
// policy, naming the round and the replication.
func TestContextualBadProbability(t *testing.T) {
	sc := parse(t, fmt.Sprintf(ctxScenario, "{dataset: iris}", 20))
	conns := map[string]*ctxConn{
		"const": {desc: ctxDesc, policy: func(int, []float64, int) (int32, float64) { return 1, 1.5 }},
		"sign":  {desc: ctxDesc, policy: signPolicy},
	}
	f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launcher(conns)})
	if !errors.Is(err, engine.ErrPolicyFailed) || f.Policies[0].Status != results.StatusFailed ||
		!strings.Contains(f.Policies[0].Error, "round 1: replication 0: plugin returned probability 1.5") || f.Policies[1].Status != results.StatusOK {
		t.Fatalf("err %v, policies %q %q", err, f.Policies[0].Error, f.Policies[1].Status)
	}
}

// TestContextualDownstream: a contextual results file goes through the
// JSON round trip, every report format, the comparison and the gate.
func TestContextualDownstream(t *testing.T) {
	f, _ := ctxRun(t, "{dataset: wine}", 150, 0, false)
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := results.Decode(buf.Bytes())
	if err != nil {
		t.Fatalf("a contextual results file does not read back: %v", err)
	}
	if back.Scenario.Context == nil || back.Scenario.Context.Dataset != "wine" || back.Policies[0].PVLoss == nil {
		t.Fatalf("context or pv_loss lost in the round trip")
	}
	for _, format := range report.Formats() {
		var out bytes.Buffer
		if err := report.Write(&out, back, report.Options{Format: format}); err != nil {
			t.Errorf("report %s: %v", format, err)
		}
		if !strings.Contains(out.String(), "Sign") {
			t.Errorf("report %s does not name the policies:\n%s", format, out.String())
		}
		if (format == report.FormatCSV || format == report.FormatJSON) && !strings.Contains(out.String(), metric.PVLoss) {
			t.Errorf("report %s has no %s", format, metric.PVLoss)
		}
	}
	if _, err := compare.Compute(back, compare.Spec{Policies: []string{"Const", "Sign"}}, compare.DefaultOptions); err != nil {
		t.Errorf("compare: %v", err)
	}
	if _, err := gate.Compare(back, back, gate.DefaultOptions); err != nil {
		t.Errorf("gate: %v", err)
	}
	var page bytes.Buffer
	if err := htmlreport.Write(&page, []*results.File{back}, htmlreport.Options{}); err != nil {
		t.Errorf("HTML report: %v", err)
	}
	// Two shards with traces merge into the unsharded run, pv_loss
	// included.
	sc := parse(t, fmt.Sprintf(ctxScenario, "{dataset: wine}", 150))
	conns := map[string]*ctxConn{"const": {desc: ctxDesc, policy: constant}, "sign": {desc: ctxDesc, policy: signPolicy}}
	var parts []*results.File
	for k, reps := range [][]uint64{{0, 2, 4, 6, 8}, {1, 3, 5, 7}} {
		part, err := engine.Run(context.Background(), sc, engine.Options{Launch: launcher(conns), Replications: reps, Traces: true})
		if err != nil {
			t.Fatal(err)
		}
		part.Shard.Index, part.Shard.Count = k, 2
		parts = append(parts, part)
	}
	merged, err := shard.Merge(parts, []string{"a", "b"})
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	for i, p := range merged.Policies {
		for _, name := range f.MetricNames() {
			if !slices.Equal(p.Final[name], f.Policies[i].Final[name]) {
				t.Errorf("merged %s %s differs from the unsharded run", p.Label, name)
			}
		}
	}
	if a, b := merged.Policies[0].Probs, f.Policies[0].Probs; a == nil || *a != *b {
		t.Errorf("merged probs %+v, want %+v", a, b)
	}
	// Check refuses a contextual file that lost its pv_loss, and a
	// context-free one that has one.
	back.Policies[0].PVLoss = nil
	if err := back.Check(); err == nil || !strings.Contains(err.Error(), "no pv_loss") {
		t.Errorf("Check without pv_loss: %v", err)
	}
}

// TestContextualSealedLookup: a plugin that carries the public dataset
// and looks up each context's label plays without regret in an open run
// (the cheat works, so the test has teeth), and finds no row at all in a
// sealed one, where the features are transformed and the classes
// relabelled.
func TestContextualSealedLookup(t *testing.T) {
	d, err := dataset.Load("iris")
	if err != nil {
		t.Fatal(err)
	}
	d.Standardize()
	key := func(x []float64) string { return fmt.Sprint(x) }
	table := map[string]int32{}
	for i := range d.N {
		table[key(d.Row(i))] = int32(d.Y[i])
	}
	for _, c := range []struct {
		seed   string
		sealed bool
	}{{"4", false}, {"\"0x" + strings.Repeat("5a", 32) + "\"", true}} {
		var mu sync.Mutex
		hits := 0
		lookup := func(_ int, x []float64, _ int) (int32, float64) {
			y, ok := table[key(x)]
			if ok {
				mu.Lock()
				hits++
				mu.Unlock()
			}
			return y, 0
		}
		sc := parse(t, fmt.Sprintf("context: {dataset: iris}\nhorizon: 150\nruns: 6\nseed: %s\npolicies: [{plugin: lookup}]\n", c.seed))
		f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launcher(map[string]*ctxConn{"lookup": {desc: ctxDesc, policy: lookup}})})
		if err != nil {
			t.Fatal(err)
		}
		mean := metric.Summarize(f.Policies[0].Final[metric.Regret]).Mean
		switch {
		case !c.sealed && (hits != 6*150 || mean != 0):
			t.Errorf("open run: %d of %d contexts found, mean regret %v; want every one found and no regret", hits, 6*150, mean)
		case c.sealed && (hits != 0 || mean < 0.3*150):
			t.Errorf("sealed run: %d contexts found, mean regret %v; want none found and about 2/3 of the rounds lost", hits, mean)
		}
		if c.sealed && f.Scenario.Streams != "ctx-hmac-sha256-v1" {
			t.Errorf("sealed run records streams %q", f.Scenario.Streams)
		}
	}
}

// BenchmarkContextualHost measures the host's own work per round of a
// contextual run (the environment's contexts, rewards and metrics), with
// an in-process plugin that does nothing: letter (d = 16, K = 26), 100
// replications in one session, open and sealed.
//
//	go test ./host/engine -run x -bench ContextualHost
func BenchmarkContextualHost(b *testing.B) {
	for _, c := range []struct{ name, seed string }{{"open", "1"}, {"sealed", "\"0x" + strings.Repeat("11", 32) + "\""}} {
		b.Run(c.name, func(b *testing.B) {
			sc, err := scenario.Parse("bench.yaml", []byte(fmt.Sprintf("context: {dataset: letter}\nhorizon: 2000\nruns: 100\nseed: %s\npolicies: [{plugin: c}]\n", c.seed)))
			if err != nil {
				b.Fatal(err)
			}
			conns := map[string]*ctxConn{"c": {desc: ctxDesc, policy: func(int, []float64, int) (int32, float64) { return 0, 0 }}}
			b.ResetTimer()
			for range b.N {
				if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: launcher(conns), Batch: 100}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(100*2000), "ns/replication-round")
		})
	}
}
