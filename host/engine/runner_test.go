package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/internal/client"
)

// rogueRunner is the runner of the replications reps of a scenario of
// three arms and 20 rounds whose one policy plays r.
func rogueRunner(t *testing.T, r *rogue, initPulls int, reps []uint64, timeout time.Duration) *engine.Runner {
	t.Helper()
	sc := parse(t, fmt.Sprintf(`
environment: {means: [0.9, 0.8, 0.5], noise_sd: 0.3}
horizon: 20
runs: 20
init_pulls: %d
policies: [{plugin: rogue, label: Rogue}]
`, initPulls))
	d, _ := r.Describe(context.Background())
	run, err := engine.NewRunner(sc, &engine.Plugin{Conn: r, Desc: d}, reps, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestRunnerWatchdog: a round the plugin does not answer fails at the
// step timeout with an error naming the round and the timeout, while an
// interruption of the run is reported as such, not as the plugin's
// timeout; either way the session is released.
func TestRunnerWatchdog(t *testing.T) {
	t.Parallel() // waits out a step timeout: beside the others
	for _, c := range []struct {
		name      string
		timeout   time.Duration
		interrupt bool   // cancel the run once round 5 hangs
		want      string // the whole error
		canceled  bool   // errors.Is(err, context.Canceled)
	}{
		// Rounds 1-4 must beat the timeout on a loaded machine; round 5
		// waits it out.
		{"step timeout", 2 * time.Second, false,
			"round 5: no answer within the step timeout 2s (--step-timeout): context canceled", false},
		{"interrupted", 10 * time.Minute, true, "round 5: context canceled", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.interrupt && testing.Short() {
				t.Skip("-short: skips waiting out the step timeout; go test without -short runs it")
			}
			r := &rogue{hung: make(chan struct{})}
			run := rogueRunner(t, r, 1, []uint64{0, 1, 2}, c.timeout)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.interrupt {
				go func() {
					<-r.hung
					cancel()
				}()
			}
			err := run.Play(ctx)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if errors.Is(err, context.Canceled) != c.canceled {
				t.Errorf("errors.Is(%v, context.Canceled) = %v, want %v", err, !c.canceled, c.canceled)
			}
			if n := r.closes.Load(); n != 1 {
				t.Errorf("%d sessions closed, want the failed one", n)
			}
		})
	}
}

// TestRunnerRound: the round step checks the plugin's answer itself. An
// arm out of range or a non-finite diagnostic fails the round, naming it
// and the global replication (not its place in the batch); during the
// host's initial pulls the plugin's arms are overruled, but it must still
// answer for every replication.
func TestRunnerRound(t *testing.T) {
	arms := func(a ...int32) func(int) (client.StepResult, error) {
		return func(int) (client.StepResult, error) { return client.StepResult{Arms: a}, nil }
	}
	for _, c := range []struct {
		name      string
		rogue     *rogue
		initPulls int
		want      string  // the error of round 5; "" none
		arms      []int32 // pulled in round 5, when no error
	}{
		{"arm out of range", &rogue{answer: arms(0, 3, 0)}, 1,
			"round 5: replication 11: plugin returned arm 3, want 0..2", nil},
		{"negative arm", &rogue{answer: arms(0, 1, -1)}, 1,
			"round 5: replication 12: plugin returned arm -1, want 0..2", nil},
		{"plugin's arms", &rogue{answer: arms(2, 0, 1)}, 1, "", []int32{2, 0, 1}},
		{"initial pull overrules the plugin", &rogue{answer: arms(7, -1, 0)}, 2, "", []int32{1, 1, 1}},
		{"initial pull, too few arms", &rogue{answer: arms(1, 1)}, 2,
			"round 5: plugin returned 2 arms for 3 replications", nil},
		{"NaN diagnostic", &rogue{diags: []string{"x"}, answer: nonFinite(math.NaN())}, 1,
			`round 5: replication 12: plugin returned diagnostic "x" = NaN; diagnostics must be finite numbers`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := rogueRunner(t, c.rogue, c.initPulls, []uint64{10, 11, 12}, time.Minute)
			ctx := context.Background()
			if err := run.Launch(ctx); err != nil {
				t.Fatal(err)
			}
			for round := 1; round < 5; round++ {
				if err := run.Round(ctx, round); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			err := run.Round(ctx, 5)
			if c.want != "" {
				if err == nil || err.Error() != c.want {
					t.Fatalf("error %v, want %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Arms(); !reflect.DeepEqual(got, c.arms) {
				t.Errorf("round 5 pulled %v, want %v", got, c.arms)
			}
		})
	}
}
