package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// recorder is a batch policy recording, per global replication, the round
// each reward arrived in, keyed by the round it was pulled in. Its arms
// depend on shift, so two recorders pull differently.
type recorder struct {
	shift int
	k     int
	reps  []sdk.Replica
	mu    *sync.Mutex
	seen  map[[2]uint64]int
}

func (r *recorder) Step(st *sdk.BatchStep) error {
	r.mu.Lock()
	for _, a := range st.Arrivals {
		r.seen[[2]uint64{r.reps[a.Index].Index, uint64(a.Round)}] = st.Round
	}
	r.mu.Unlock()
	for i := range st.Arms {
		st.Arms[i] = int32((st.Round*r.shift + i) % r.k)
	}
	return nil
}

// TestDelaysIndependentOfPolicy: two policies that pull differently, in
// batches of different sizes, see every reward arrive in the same round:
// delays are keyed by the environment and the replication only.
func TestDelaysIndependentOfPolicy(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]map[[2]uint64]int{}
	launch := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		shift := map[string]int{"rec-a": 1, "rec-b": 3}[p.Plugin]
		c, err := client.NewLocal(sdk.Plugin{Name: p.Plugin, Version: "1", NewBatch: func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
			mu.Lock()
			defer mu.Unlock()
			if seen[shift] == nil {
				seen[shift] = map[[2]uint64]int{}
			}
			return &recorder{shift: shift, k: s.Arms, reps: reps, mu: &mu, seen: seen[shift]}, nil
		}})
		if err != nil {
			return nil, err
		}
		d, _ := c.Describe(ctx)
		return &engine.Plugin{Conn: c, Desc: d}, nil
	}
	sc := parse(t, `
environment: {means: [0.5, 0.4, 0.2], noise_sd: 1}
horizon: 300
runs: 9
seed: 4
feedback: {delay: {geometric: 7}}
policies:
  - {plugin: rec-a}
  - {plugin: rec-b}
`)
	if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch, Batch: 9}); err != nil {
		t.Fatal(err)
	}
	a := seen[1]
	seen = map[int]map[[2]uint64]int{}
	if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch, Batch: 2}); err != nil {
		t.Fatal(err)
	}
	if len(a) < 9*250 {
		t.Fatalf("only %d rewards arrived", len(a))
	}
	for name, b := range map[string]map[[2]uint64]int{"another policy": seen[3], "batches of 2": seen[1]} {
		if !reflect.DeepEqual(a, b) {
			diff := 0
			for k, v := range a {
				if b[k] != v {
					diff++
				}
			}
			t.Errorf("%s: %d of %d rewards arrive in another round", name, diff, len(a))
		}
	}
	late := 0
	for k, v := range a {
		if v > int(k[1])+1 {
			late++
		}
	}
	if late == 0 {
		t.Error("no reward arrived late under geometric delays of mean 7")
	}
}

// TestProtocol1Refused: a plugin that speaks protocol 1 fails the run as
// bad input, before any session opens, when a policy has delayed feedback.
func TestProtocol1Refused(t *testing.T) {
	opened := false
	launch := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		c, err := client.NewLocal(sdk.Plugin{Name: "old", Version: "1", New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
			opened = true
			return &scripted{k: s.Arms, idx: r.Index}, nil
		}})
		if err != nil {
			return nil, err
		}
		d, _ := c.Describe(ctx)
		d.ProtocolVersion = 1
		return &engine.Plugin{Conn: c, Desc: d}, nil
	}
	for _, fb := range []string{"", "feedback: {batch: 5}\n"} {
		sc := parse(t, fmt.Sprintf(`
environment: {means: [0.5, 0.4], noise_sd: 1}
horizon: 20
runs: 2
%spolicies: [{plugin: old, label: Old}]
`, fb))
		opened = false
		_, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch})
		if fb == "" {
			if err != nil || !opened {
				t.Errorf("immediate feedback: %v (opened %v)", err, opened)
			}
			continue
		}
		if err == nil || !errors.Is(err, engine.ErrInput) || opened {
			t.Errorf("delayed feedback: error %v, opened %v; want ErrInput before any session", err, opened)
		}
	}
}
