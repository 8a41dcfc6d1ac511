package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/plugins/klucb/klucb"
	"github.com/regretbench/regretbench/plugins/remax/remax"
	"github.com/regretbench/regretbench/plugins/ts/thompson"
	"github.com/regretbench/regretbench/sdk"
)

// scripted pulls a fixed arm sequence that depends only on the round and
// the replication, so two copies of it face identical reward stacks.
type scripted struct {
	k   int
	idx uint64
}

func (s *scripted) Select(t int) int          { return int((uint64(t)*7 + s.idx) % uint64(s.k)) }
func (s *scripted) Observe(int, int, float64) {}

var plugins = map[string]sdk.Plugin{
	"ts":    {Name: "ts", Version: "1", Params: thompson.Params, New: thompson.New},
	"klucb": {Name: "klucb", Version: "1", Params: klucb.Params, New: klucb.New},
	"remax": {Name: "remax", Version: "1", Params: remax.Params, Diagnostics: remax.Diagnostics, New: remax.New},
	"scripted": {Name: "scripted", Version: "1", New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
		return &scripted{k: s.Arms, idx: r.Index}, nil
	}},
}

// local launches the plugins in process, without RPC.
func local(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
	pl, ok := plugins[p.Plugin]
	if !ok {
		return nil, fmt.Errorf("%w: no plugin %q", engine.ErrInput, p.Plugin)
	}
	c, err := client.NewLocal(pl)
	if err != nil {
		return nil, err
	}
	d, _ := c.Describe(ctx)
	return &engine.Plugin{Conn: c, Desc: d}, nil
}

func parse(t *testing.T, yaml string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const small = `
name: small
environment: {family: gaussian, means: [0.9, 0.8, 0.5], noise_sd: 0.3}
horizon: 400
runs: 70
seed: 5
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
  - {plugin: scripted, label: A}
  - {plugin: scripted, label: B}
`

// canonical is the results JSON with wall-clock timings removed.
func canonical(t *testing.T, f *results.File) string {
	t.Helper()
	for _, p := range f.Policies {
		p.Seconds = 0
	}
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func run(t *testing.T, sc *scenario.Scenario, opts engine.Options) *results.File {
	t.Helper()
	opts.Launch = local
	f, err := engine.Run(context.Background(), sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDeterminism: the same scenario and seed give identical results
// whatever GOMAXPROCS, the batch split or the number of concurrent jobs.
func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	want := canonical(t, run(t, parse(t, small), engine.Options{}))
	for _, tc := range []struct {
		name  string
		procs int
		opts  engine.Options
	}{
		{"gomaxprocs=1", 1, engine.Options{}},
		{"batch=7", 2, engine.Options{Batch: 7}},
		{"batch=33,jobs=1", 2, engine.Options{Batch: 33, Jobs: 1}},
		{"gomaxprocs=1,batch=1", 1, engine.Options{Batch: 1}},
	} {
		runtime.GOMAXPROCS(tc.procs)
		if got := canonical(t, run(t, parse(t, small), tc.opts)); got != want {
			t.Errorf("%s: results differ from the default run", tc.name)
		}
	}
}

// TestCommonRandomNumbers: two policies pulling the same arm sequence see
// the same rewards (so their reward-dependent underestimation counts agree),
// and a policy's results do not change when others join the scenario.
func TestCommonRandomNumbers(t *testing.T) {
	f := run(t, parse(t, small), engine.Options{})
	byLabel := map[string]*results.Policy{}
	for _, p := range f.Policies {
		byLabel[p.Label] = p
	}
	a, b := byLabel["A"], byLabel["B"]
	if !reflect.DeepEqual(a.Final, b.Final) {
		t.Fatal("identical arm sequences got different metrics")
	}
	if sum(a.Final["underestimation"]) == 0 {
		t.Fatal("test is vacuous: the scripted policy never saw an underestimated best arm")
	}
	alone := strings.Replace(small, "  - {plugin: klucb, label: KL-UCB}\n  - {plugin: scripted, label: A}\n  - {plugin: scripted, label: B}\n", "", 1)
	g := run(t, parse(t, alone), engine.Options{})
	if len(g.Policies) != 1 || !reflect.DeepEqual(g.Policies[0].Final, byLabel["TS"].Final) ||
		!reflect.DeepEqual(g.Policies[0].Regret, byLabel["TS"].Regret) {
		t.Fatal("TS results changed when other policies were added")
	}
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// TestShardsPartition: running two disjoint slices of the replications
// gives exactly the per-replication values of the full run, for every
// metric and policy.
func TestShardsPartition(t *testing.T) {
	sc := parse(t, small)
	full := run(t, sc, engine.Options{})
	slices := [2][]uint64{}
	for i := 0; i < sc.Runs; i++ {
		slices[i%2] = append(slices[i%2], uint64(i))
	}
	for _, part := range slices {
		f := run(t, parse(t, small), engine.Options{Replications: part})
		for pi, p := range f.Policies {
			for name, vals := range p.Final {
				for j, r := range part {
					if vals[j] != full.Policies[pi].Final[name][r] {
						t.Fatalf("%s %s replication %d: shard value differs", p.Label, name, r)
					}
				}
			}
		}
	}
}

// TestLaiRobbinsSanity: on two_arm, TS and KL-UCB regret at T=20000 lies
// within [0.3, 3] times the Lai-Robbins term 2 sd^2 / Delta * log T. The
// band is wide because the asymptotic constant ignores lower-order terms;
// a broken policy (uniform play: 1000, greedy: linear) lands far outside.
func TestLaiRobbinsSanity(t *testing.T) {
	if testing.Short() {
		t.Skip("full-horizon run")
	}
	sc, err := scenario.Named("two_arm")
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 200
	if err := sc.Select([]string{"TS", "KL-UCB"}); err != nil {
		t.Fatal(err)
	}
	f := run(t, sc, engine.Options{})
	const sd, delta = 0.15, 0.1
	lr := 2 * sd * sd / delta * math.Log(float64(sc.Horizon))
	for _, p := range f.Policies {
		got := p.Regret.Mean[len(p.Regret.Mean)-1]
		if got < 0.3*lr || got > 3*lr {
			t.Errorf("%s: regret %.3f outside [%.3f, %.3f]", p.Label, got, 0.3*lr, 3*lr)
		}
	}
}

// TestBadParams: unknown or ill-typed parameters are refused before any
// round is played, naming the policy and the parameter.
func TestBadParams(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{"{cc: 1}", `unknown parameter "cc"`},
		{"{c: yes}", `parameter "c"`},
	} {
		sc := parse(t, strings.Replace(small, "{plugin: klucb, label: KL-UCB}", "{plugin: klucb, label: KL-UCB, params: "+tc.params+"}", 1))
		_, err := engine.Run(context.Background(), sc, engine.Options{Launch: local})
		if !errors.Is(err, engine.ErrInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "KL-UCB") {
			t.Errorf("params %s: got %v, want ErrInput mentioning %q and the label", tc.params, err, tc.want)
		}
	}
}

// TestProcessPerPolicy: two policies of one plugin executable get a
// plugin process each, so that neither can read what the other observes
// (docs/threat-model.md: collusion); every connection is closed at the end.
func TestProcessPerPolicy(t *testing.T) {
	sc := parse(t, small) // A and B are both "scripted"
	var mu sync.Mutex
	launched := map[string]int{}
	var conns []*countingConn
	launch := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		pl, err := local(ctx, p)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		launched[p.Plugin]++
		c := &countingConn{Conn: pl.Conn}
		conns = append(conns, c)
		pl.Conn = c
		return pl, nil
	}
	if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"ts": 1, "klucb": 1, "scripted": 2}
	if !reflect.DeepEqual(launched, want) {
		t.Errorf("launches per plugin %v, want %v", launched, want)
	}
	for i, c := range conns {
		if c.closed != 1 {
			t.Errorf("connection %d closed %d times, want 1", i, c.closed)
		}
	}
}

// countingConn counts Close calls.
type countingConn struct {
	client.Conn
	closed int
}

func (c *countingConn) Close() error {
	c.closed++
	return c.Conn.Close()
}
