package engine

import (
	"context"
	"time"

	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// Runner exposes the runner of one batch to the tests of engine_test.
type Runner struct{ r *runner }

// NewRunner is the runner of the batch reps of sc's first policy, played
// through p with the given step timeout.
func NewRunner(sc *scenario.Scenario, p *Plugin, reps []uint64, timeout time.Duration) (*Runner, error) {
	e, err := env.New(sc.Family(), sc.TrueMeans(), sc.Environment.NoiseSD, sc.Seed)
	if err != nil {
		return nil, err
	}
	pol := sc.Policies[0]
	j := &job{pol: pol, plugin: p, feedback: sc.FeedbackOf(pol), res: &results.Policy{Label: pol.Label}}
	diagCP := diagCheckpoints(sc.Checkpoints, sc.K()*sc.InitPulls)
	return &Runner{newRunner(j, sc, e, reps, diagCP, &Options{StepTimeout: timeout})}, nil
}

// Play plays the whole batch.
func (r *Runner) Play(ctx context.Context) error {
	_, _, err := r.r.play(ctx)
	return err
}

// Launch opens the session.
func (r *Runner) Launch(ctx context.Context) error { return r.r.launch(ctx) }

// Round plays round t.
func (r *Runner) Round(ctx context.Context, t int) error { return r.r.round(ctx, t) }

// Arms are the arms pulled in the last round played.
func (r *Runner) Arms() []int32 { return r.r.arms }
