package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// rogue is a plugin connection that does not go through the SDK's checks,
// as a plugin written in another language might not: its answer to round
// 5 is whatever answer returns.
type rogue struct {
	answer func(n int) (client.StepResult, error)
	block  bool          // Open never returns (until ctx ends)
	hung   chan struct{} // when set, round 5 closes it and never returns (until ctx ends)
	diags  []string      // declared diagnostics
	params []sdk.Param   // declared as is, unchecked
	opens  atomic.Int32
	closes atomic.Int32 // sessions closed
}

func (r *rogue) Describe(context.Context) (*client.Description, error) {
	return &client.Description{Name: "rogue", Version: "1", ProtocolVersion: client.ProtocolVersion, Params: r.params, Diagnostics: r.diags}, nil
}

func (r *rogue) Open(ctx context.Context, req *client.OpenRequest) (client.SessionConn, error) {
	r.opens.Add(1)
	if r.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &rogueSession{r: r, n: len(req.Replications)}, nil
}

func (r *rogue) Close() error { return nil }

type rogueSession struct {
	r    *rogue
	n    int
	arms []int32
}

func (s *rogueSession) Step(ctx context.Context, st *client.Step) (client.StepResult, error) {
	if st.Round == 5 && s.r.hung != nil {
		close(s.r.hung)
		<-ctx.Done()
		return client.StepResult{}, ctx.Err()
	}
	if st.Round == 5 {
		return s.r.answer(s.n)
	}
	s.arms = make([]int32, s.n)
	res := client.StepResult{Arms: s.arms}
	if st.WantDiag {
		for range s.r.diags {
			res.Diagnostics = append(res.Diagnostics, make([]float64, s.n))
		}
	}
	return res, nil
}

func (s *rogueSession) Close(context.Context) error {
	s.r.closes.Add(1)
	return nil
}

// TestRoguePlugin: the host checks every answer itself; a bad one fails
// the policy with a message naming the round, and the other policies of
// the scenario still finish.
func TestRoguePlugin(t *testing.T) {
	t.Parallel() // waits out a step timeout: beside the others
	sc := parse(t, `
environment: {means: [0.9, 0.8, 0.5], noise_sd: 0.3}
horizon: 20
runs: 3
policies:
  - {plugin: rogue, label: Rogue}
  - {plugin: ts, label: TS}
`)
	for _, c := range []struct {
		name  string
		rogue *rogue
		want  string
	}{
		{"too few arms", &rogue{answer: func(n int) (client.StepResult, error) { return client.StepResult{Arms: make([]int32, n-1)}, nil }},
			"round 5: plugin returned 2 arms for 3 replications"},
		{"arm out of range", &rogue{answer: func(n int) (client.StepResult, error) {
			a := make([]int32, n)
			a[1] = 3
			return client.StepResult{Arms: a}, nil
		}}, "round 5: replication 1: plugin returned arm 3, want 0..2"},
		{"negative arm", &rogue{answer: func(n int) (client.StepResult, error) {
			a := make([]int32, n)
			a[0] = -1
			return client.StepResult{Arms: a}, nil
		}}, "replication 0: plugin returned arm -1"},
		{"error", &rogue{answer: func(int) (client.StepResult, error) { return client.StepResult{}, errors.New("out of memory") }},
			"round 5: out of memory"},
		{"too many diagnostics", &rogue{diags: make([]string, 100000)},
			"the plugin declares 100000 diagnostics: at 17 checkpoints x 3 replications that is 5100000 values"},
		{"hangs in Open", &rogue{block: true}, "opening a session: no answer within the step timeout 5s (--step-timeout)"},
		// A non-finite diagnostic would make the results file unwritable
		// (JSON has no NaN) and so lose every policy's results.
		{"NaN diagnostic", &rogue{diags: []string{"x"}, answer: nonFinite(math.NaN())},
			`round 5: replication 2: plugin returned diagnostic "x" = NaN; diagnostics must be finite`},
		{"Inf diagnostic", &rogue{diags: []string{"x"}, answer: nonFinite(math.Inf(-1))},
			`replication 2: plugin returned diagnostic "x" = -Inf`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.rogue.block && testing.Short() {
				t.Skip("-short: skips waiting out the step timeout; go test without -short runs it")
			}
			launch := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
				if p.Plugin == "rogue" {
					d, _ := c.rogue.Describe(ctx)
					return &engine.Plugin{Conn: c.rogue, Desc: d}, nil
				}
				return local(ctx, p)
			}
			// The timeout must fire for the plugin that hangs in Open, and
			// must not for every round of the others on a loaded machine.
			f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch, StepTimeout: 5 * time.Second})
			if !errors.Is(err, engine.ErrPolicyFailed) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `policy "Rogue"`) {
				t.Fatalf("error %v, want ErrPolicyFailed naming Rogue and %q", err, c.want)
			}
			if len(f.Policies) != 2 || f.Policies[0].Status != results.StatusFailed || f.Policies[1].Status != results.StatusOK {
				t.Errorf("statuses: %s %q, %s %q", f.Policies[0].Label, f.Policies[0].Status, f.Policies[1].Label, f.Policies[1].Status)
			}
			if !f.Complete {
				t.Error("a failed policy marked the file incomplete")
			}
			if _, err := json.Marshal(f); err != nil {
				t.Errorf("the results file cannot be written: %v", err)
			}
		})
	}
}

// nonFinite answers with diagnostic x = v for the last replication.
func nonFinite(v float64) func(n int) (client.StepResult, error) {
	return func(n int) (client.StepResult, error) {
		d := make([]float64, n)
		d[n-1] = v
		return client.StepResult{Arms: make([]int32, n), Diagnostics: [][]float64{d}}, nil
	}
}

// TestParamDeclarations: a plugin declaring a parameter bench cannot use
// fails only its own policy (ErrPolicyFailed), blaming the plugin; a
// scenario value outside a valid declared range refuses the run
// (ErrInput) naming the label, the parameter, the value and the range,
// before any session is opened.
func TestParamDeclarations(t *testing.T) {
	for _, c := range []struct {
		name   string
		params []sdk.Param
		values string   // the Rogue policy's params in the scenario
		input  bool     // ErrInput; otherwise ErrPolicyFailed
		want   []string // in the error
	}{
		{"unknown type", []sdk.Param{{Name: "z", Type: "complex", Default: 1.0}}, "{}", false,
			[]string{`policy "Rogue"`, "plugin rogue", "its Describe declares", `parameter "z": unknown type "complex"`}},
		{"default of another type", []sdk.Param{{Name: "n", Type: sdk.Int, Default: "three"}}, "{}", false,
			[]string{`policy "Rogue"`, "plugin rogue", `parameter "n": default: want int, got string three`}},
		{"default outside its own range", []sdk.Param{{Name: "m", Type: sdk.Int, Default: int64(1), Min: sdk.Inclusive(2)}}, "{}", false,
			[]string{`policy "Rogue"`, `parameter "m": default 1: want >= 2`}},
		{"scenario value below min", []sdk.Param{{Name: "m", Type: sdk.Int, Default: int64(2), Min: sdk.Inclusive(2)}}, "{m: 1}", true,
			[]string{`policies[0] "Rogue"`, `parameter "m" = 1`, "want >= 2"}},
		{"scenario value not allowed", []sdk.Param{{Name: "s", Type: sdk.String, Default: "a", Allowed: []any{"a", "b"}}}, "{s: c}", true,
			[]string{`policies[0] "Rogue"`, `parameter "s" = c`, `want one of "a", "b"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := parse(t, `
environment: {means: [0.9, 0.8, 0.5], noise_sd: 0.3}
horizon: 20
runs: 3
policies:
  - {plugin: rogue, label: Rogue, params: `+c.values+`}
  - {plugin: ts, label: TS}
`)
			r := &rogue{params: c.params}
			var tsOpens atomic.Int32
			launch := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
				if p.Plugin == "rogue" {
					d, _ := r.Describe(ctx)
					return &engine.Plugin{Conn: r, Desc: d}, nil
				}
				pl, err := local(ctx, p)
				if err == nil {
					pl.Conn = countOpens{pl.Conn, &tsOpens}
				}
				return pl, err
			}
			f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch})
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, engine.ErrInput) != c.input || errors.Is(err, engine.ErrPolicyFailed) == c.input {
				t.Errorf("error %v: ErrInput %v, ErrPolicyFailed %v; want ErrInput %v", err,
					errors.Is(err, engine.ErrInput), errors.Is(err, engine.ErrPolicyFailed), c.input)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if n := r.opens.Load(); n != 0 {
				t.Errorf("Rogue: %d sessions opened, want none", n)
			}
			if c.input {
				if f != nil || tsOpens.Load() != 0 {
					t.Errorf("refused run: results %v, TS opened %d sessions", f, tsOpens.Load())
				}
				return
			}
			if len(f.Policies) != 2 || f.Policies[0].Status != results.StatusFailed || f.Policies[1].Status != results.StatusOK {
				t.Fatalf("policies: %+v", f.Policies)
			}
			if !strings.Contains(f.Policies[0].Error, "its Describe declares") {
				t.Errorf("Rogue's recorded error %q does not blame its declaration", f.Policies[0].Error)
			}
		})
	}
}

// countOpens counts the sessions opened through a Conn.
type countOpens struct {
	client.Conn
	n *atomic.Int32
}

func (c countOpens) Open(ctx context.Context, req *client.OpenRequest) (client.SessionConn, error) {
	c.n.Add(1)
	return c.Conn.Open(ctx, req)
}
