package conformance

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

// stuck is a plugin whose policies block in Open (New), in a round
// (Select of round 5) or in Close, as where says, until release is
// closed.
func stuck(where string, release chan struct{}) sdk.Plugin {
	wait := func(w string) {
		if w == where {
			<-release
		}
	}
	return sdk.Plugin{Name: "stuck", Version: "0.0.1",
		NewBatch: func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
			wait("open")
			return &stuckBatch{wait: wait, s: s}, nil
		}}
}

type stuckBatch struct {
	wait func(string)
	s    sdk.Session
}

func (b *stuckBatch) Step(st *sdk.BatchStep) error {
	if st.Round == 5 {
		b.wait("step")
	}
	for i := range st.Arms {
		st.Arms[i] = int32(rand.IntN(b.s.Arms))
	}
	return nil
}

func (b *stuckBatch) Close() error { b.wait("close"); return nil }

// TestStepTimeout: a plugin that does not answer Open, a Step or Close
// over go-plugin fails the rule over a transport, within the step
// timeout, with a message naming the call and the timeout; the kit goes
// on, over the next transport, and after two hangs plays no more
// sessions, saying why. (The path without RPC cannot be interrupted: it is left out.)
func TestStepTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips waiting out the step timeout over every transport (6 s); go test without -short runs it")
	}
	t.Parallel() // waits out timeouts: beside the other checks
	for _, c := range []struct{ where, call string }{
		{"open", "Open"}, {"step", "Step (round 5)"}, {"close", "Close"},
	} {
		t.Run(c.where, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			// It must fire at the call that hangs, and not before on a
			// loaded machine: short, but not too short.
			const limit = 2 * time.Second
			s := inProcess(stuck(c.where, release), newConfig([]Option{WithSeed(1), Quick(),
				WithStepTimeout(limit), WithRules("edge-two-arms")}))
			s.all, s.fast = s.all[1:], nil // socket, grpc, grpc-unary
			start := time.Now()
			var got []Result
			s.run(context.Background(), func(r Result) { got = append(got, r) })
			if len(got) != 4 { // handshake, then the rule over 3 transports
				t.Fatalf("%d results, want 4: %+v", len(got), got)
			}
			// The third transport is not run after two hangs.
			if r := got[3]; r.Err != nil || !strings.HasPrefix(r.Skipped, "not run: the plugin hit the step timeout in edge-two-arms/socket and edge-two-arms/grpc") {
				t.Errorf("%s: %v %q, want not run after two hangs", r.Name(), r.Err, r.Skipped)
			}
			for _, r := range got[1:3] {
				if r.Err == nil || !strings.Contains(r.Err.Error(), c.call) ||
					!strings.Contains(r.Err.Error(), "did not answer within the step timeout 2s") {
					t.Errorf("%s: %v, want a failure: %s: did not answer within the step timeout 2s", r.Name(), r.Err, c.call)
				}
			}
			// Each transport waits the timeout, then closes the plugin
			// (in process: the connection; at most procrun.KillGrace).
			if d := time.Since(start); d > 5*time.Minute { // a hang check
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestInterruptedCheckNotReported: when the context ends, the check it
// interrupted is not reported, nor any after it.
func TestInterruptedCheckNotReported(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	p := stuck("step", release)
	var once sync.Once
	inner := p.NewBatch
	p.NewBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
		// The plugin hangs from round 5: interrupt a little later.
		once.Do(func() { time.AfterFunc(100*time.Millisecond, cancel) })
		return inner(s, reps)
	}
	s := inProcess(p, newConfig([]Option{WithSeed(1), Quick(), WithStepTimeout(time.Hour), WithRules("describe", "valid-arms")}))
	s.all, s.fast = s.all[1:], nil
	var got []string
	s.run(ctx, func(r Result) { got = append(got, r.Name()) })
	if strings.Join(got, " ") != "handshake describe" {
		t.Errorf("reported %q, want handshake describe only", got)
	}
}

// TestPlanReplays: a check's sessions depend on the seed and the check's
// name only, and a seed's are not another's.
func TestPlanReplays(t *testing.T) {
	sessions := func(seed uint64, check string) string {
		p := newPlan(newConfig([]Option{WithSeed(seed)}), check)
		var out []string
		for range 5 {
			out = append(out, p.session(draw{}).String())
		}
		out = append(out, p.long(1).String(), p.mid(2).String())
		return strings.Join(out, "\n")
	}
	a := sessions(7, "batch-split/socket")
	if b := sessions(7, "batch-split/socket"); a != b {
		t.Errorf("seed 7 drew\n%s\nthen\n%s", a, b)
	}
	if b := sessions(8, "batch-split/socket"); a == b {
		t.Errorf("seeds 7 and 8 drew the same sessions:\n%s", a)
	}
	if b := sessions(7, "batch-split/grpc"); a == b {
		t.Errorf("two checks drew the same sessions:\n%s", a)
	}
	// Sizes stay within the documented ranges.
	for seed := range uint64(200) {
		p := newPlan(newConfig([]Option{WithSeed(seed)}), "valid-arms/socket")
		s := p.session(draw{})
		big := s.horizon >= bigMin && s.horizon <= fullSizes.bigMax && s.horizon%1000 == 0
		if s.arms < minArms || s.arms > maxArms || s.horizon < s.arms+minSelect || (s.horizon > fullSizes.maxT && !big) ||
			len(s.reps) < 1 || len(s.reps) > fullSizes.maxReps || len(s.reps)*s.horizon > max(fullSizes.budget, s.horizon) {
			t.Errorf("seed %d: session %v out of range", seed, s)
		}
		if l := p.long(1); l.horizon < 20_000 || l.horizon > 25_000 {
			t.Errorf("seed %d: long session %v", seed, l)
		}
	}
}
