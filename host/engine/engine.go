// Package engine runs a scenario's policies against the host-owned
// environment in batched lockstep rounds and collects their metrics.
package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/roundslog"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/procs"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is a connected plugin as the engine needs it.
type Plugin struct {
	Conn   client.Conn
	Desc   *client.Description
	SHA256 string // hex, "" when unknown (in-process)
	// Sandbox names the confinement the plugin runs under ("strict",
	// "off", "landlock+seccomp"; package sandbox), "" when unknown.
	Sandbox string
	// Limits are the limits the plugin runs under, nil when unknown.
	Limits *results.Limits
}

// Launcher connects to the plugin of a scenario policy. An error wrapped
// with ErrInput (missing plugin, bad pin) refuses the whole run before it
// starts; any other error fails only the policies using that plugin, as
// does a Description that fails client.Description.Validate.
type Launcher func(ctx context.Context, p scenario.Policy) (*Plugin, error)

// ErrInput marks errors in what the user asked for, as opposed to a fault
// of a plugin while it ran.
var ErrInput = errors.New("bad input")

// MaxDiagnosticCells bounds diagnostics x diagnostic checkpoints x
// replications for one policy run: the engine keeps every value until the
// run ends (about 16 bytes each, 64 MB at the bound). A policy whose plugin
// declares more fails before its first round.
const MaxDiagnosticCells = 4_000_000

// ErrPolicyFailed is returned (wrapped) by Run when at least one policy
// failed while the others completed.
var ErrPolicyFailed = errors.New("policy failed")

// Options tunes a run.
type Options struct {
	Launch Launcher
	// Replications are the global replication indices to run; nil means
	// 0..Runs-1. Shards pass their slice.
	Replications []uint64
	// Batch is the number of replications per plugin session; 0 means half
	// of them (two sessions), or all of them when there are fewer than 64.
	Batch int
	// Jobs is how many policies run at once; 0 means procs.Cores(), one per
	// core (not counting the spare P of procs.SpareP).
	Jobs int
	// Sessions is how many sessions (batches) of one policy run at once;
	// 0 means 2.
	Sessions int
	// StepTimeout fails a policy whose plugin does not answer a round in
	// time; 0 means 5 minutes.
	StepTimeout time.Duration
	// Traces keeps every replication's values at every checkpoint in the
	// results (results.Policy.Traces), as shard files need for exact merging.
	Traces bool
	// RoundsLog, when set, receives every round of every replication of
	// a contextual scenario (bench run --rounds-log); a context-free
	// scenario refuses it. Writing it is the caller's (Spool.Write), once
	// the run is over.
	RoundsLog *roundslog.Spool
	// Progress, when set, follows each policy in replication-rounds (one
	// round of one replication): it is called once with done 0 when the
	// policy starts, then about every 1% of the rounds of each session,
	// with the replication-rounds the policy has played over all its
	// sessions, out of total, its replications x the horizon. total is the
	// same in every call for a policy, and done never decreases from one
	// call to the next, although the calls come from the goroutines of
	// its concurrent sessions (they are serialized); done reaches total
	// when the policy has played every round.
	Progress func(label string, done, total int64)
}

// Record is what a results file records of sc: the one place that maps a
// scenario to results.Scenario, so that a run, a gate's pre-check and
// --resume compare like with like.
func Record(sc *scenario.Scenario) results.Scenario {
	if c := sc.Context; c != nil {
		return results.Scenario{
			Name: sc.Name, Description: sc.Description, Family: string(sc.Family()),
			Arms: sc.K(), Horizon: sc.Horizon, Runs: sc.Runs, Seed: sc.Seed, InitPulls: sc.InitPulls,
			Streams: env.ContextStreams(sc.Seed), Means: []float64{}, NoiseSD: c.NoiseSD,
			NoiseKnown: ptr(true), Checkpoints: sc.Checkpoints,
			Context: &results.Context{
				Dataset: c.Dataset, DatasetFile: c.DatasetFile, DatasetSHA256: c.FileSHA256(), Rows: c.Rows(),
				Model: c.Model, Dim: c.D(), PerArm: c.PerArm, NoiseSD: c.NoiseSD, Cost: c.Cost,
			},
		}
	}
	rec := results.Scenario{
		Name: sc.Name, Description: sc.Description, Family: string(sc.Family()),
		Arms: sc.K(), Horizon: sc.Horizon, Runs: sc.Runs, Seed: sc.Seed, InitPulls: sc.InitPulls,
		Streams: env.Streams(sc.Seed), Means: sc.TrueMeans(), NoiseSD: sc.Environment.NoiseSD,
		NoiseKnown: ptr(sc.Environment.IsNoiseKnown()), Checkpoints: sc.Checkpoints,
		Changes: recordPoints(sc.TrueChanges()), Drift: recordPoints(sc.TrueDrift()),
	}
	if r := sc.TrueRandomChanges(); r != nil {
		rec.RandomChanges = &results.RandomChanges{Rate: r.Rate, Means: results.MeanDistribution{Uniform: r.Means.Uniform}}
	}
	return rec
}

func recordPoints(ps []scenario.Change) []results.Change {
	if ps == nil {
		return nil
	}
	out := make([]results.Change, len(ps))
	for i, p := range ps {
		out[i] = results.Change{At: p.At, Means: p.Means}
	}
	return out
}

// Changes is how the means of sc's environment move, for env.NewChanging:
// nil for a stationary environment.
func Changes(sc *scenario.Scenario) *env.Changes {
	points := func(ps []scenario.Change) []env.Point {
		out := make([]env.Point, len(ps))
		for i, p := range ps {
			out[i] = env.Point{At: p.At, Means: p.Means}
		}
		return out
	}
	switch {
	case len(sc.Environment.Changes) > 0:
		return &env.Changes{Kind: env.Steps, Points: points(sc.TrueChanges())}
	case len(sc.Environment.Drift) > 0:
		return &env.Changes{Kind: env.Drift, Points: points(sc.TrueDrift())}
	case sc.Environment.RandomChanges != nil:
		r := sc.TrueRandomChanges()
		return &env.Changes{Kind: env.Poisson, Rate: r.Rate, Low: r.Means.Uniform[0], High: r.Means.Uniform[1]}
	}
	return nil
}

// Run runs every policy of sc and returns the results. Policies that
// failed are marked so in the file; Run then also returns an error wrapping
// ErrPolicyFailed that describes each failure. On ctx cancellation the
// returned file holds the policies that finished, is marked incomplete, and
// the error wraps ctx.Err().
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*results.File, error) {
	var e *env.Env
	var ce *env.Contextual
	var err error
	if sc.Contextual() {
		ce, err = Contextual(sc)
	} else {
		e, err = env.NewChanging(sc.Family(), sc.TrueMeans(), sc.Environment.NoiseSD, sc.Seed, Changes(sc))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: scenario %s: %v", ErrInput, sc.Source, err)
	}
	if opts.RoundsLog != nil && ce == nil {
		return nil, fmt.Errorf("%w: scenario %s: a rounds log records contextual rounds, and the scenario has no context block", ErrInput, sc.Source)
	}
	reps := opts.Replications
	if reps == nil {
		reps = make([]uint64, sc.Runs)
		for i := range reps {
			reps[i] = uint64(i)
		}
	}
	if opts.StepTimeout == 0 {
		opts.StepTimeout = 5 * time.Minute
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = procs.Cores()
	}

	file := &results.File{
		Schema:   results.Schema,
		Scenario: Record(sc),
		Shard:    results.Shard{Index: 0, Count: 1},
		Complete: true,
		Bench:    &results.BenchInfo{Version: results.HostVersion()},
	}
	if fb, err := sc.Feedback.Mode(); err != nil {
		return nil, fmt.Errorf("%w: scenario %s: %v", ErrInput, sc.Source, err)
	} else if fb.Delayed() {
		file.Scenario.Feedback = fb.String()
	}

	// Connect every plugin and check every policy's parameters before any
	// round is played: bad input must not cost a half-finished run.
	//
	// Each policy gets a plugin process of its own, even when several
	// use one executable (a parameter sweep): policies in one process
	// could share what they observe, an explorer feeding an exploiter
	// (docs/threat-model.md), which no sandbox of the process can stop.
	plugins := map[int]*Plugin{}
	launchErr := map[int]error{}
	defer func() {
		for _, p := range plugins {
			p.Conn.Close()
		}
	}()
	jobsList := make([]*job, len(sc.Policies))
	for i, pol := range sc.Policies {
		key := i
		if ctx.Err() != nil {
			// Interrupted while starting plugins: start no more.
			jobsList[i] = &job{idx: i, pol: pol, res: &results.Policy{Label: pol.Label, Plugin: pol.Plugin, Status: "skipped"}}
			continue
		}
		if _, done := plugins[key]; !done && launchErr[key] == nil {
			p, err := opts.Launch(ctx, pol)
			if err != nil {
				if errors.Is(err, ErrInput) {
					return nil, fmt.Errorf("scenario %s: policies[%d] %q: %w", sc.Source, i, pol.Label, err)
				}
				launchErr[key] = err
			} else if err := p.Desc.Validate(); err != nil {
				// A declaration bench cannot use is the plugin's fault:
				// fail its policies, not the run (the scenario's values are
				// judged below, against a valid declaration).
				p.Conn.Close()
				launchErr[key] = fmt.Errorf("plugin %s: its Describe declares what bench cannot use: %w", pol.Plugin, err)
			} else {
				plugins[key] = p
			}
		}
		j := &job{idx: i, pol: pol, res: &results.Policy{Label: pol.Label, Plugin: pol.Plugin, Params: map[string]any{}, Color: pol.Color}}
		jobsList[i] = j
		if err := launchErr[key]; err != nil {
			j.fail(err)
			continue
		}
		j.plugin = plugins[key]
		j.cenv = ce
		if err := checkContextual(sc, i, pol, j.plugin.Desc); err != nil {
			return nil, err
		}
		j.feedback = sc.FeedbackOf(pol)
		if j.feedback.Delayed() {
			j.res.Feedback = j.feedback.String()
			if v := j.plugin.Desc.ProtocolVersion; v < client.DelayedFeedbackVersion {
				// Refused before any round: the plugin could not be told
				// that rewards arrive late.
				return nil, fmt.Errorf("%w: scenario %s: policies[%d] %q: plugin %s speaks protocol version %d, but feedback %s needs protocol version %d (rebuild the plugin with a newer SDK, or run it without feedback:)",
					ErrInput, sc.Source, i, pol.Label, pol.Plugin, v, j.feedback, client.DelayedFeedbackVersion)
			}
		}
		j.res.PluginVersion = j.plugin.Desc.Version
		j.res.PluginSHA256 = j.plugin.SHA256
		j.res.SetSandbox(j.plugin.Sandbox) // seen: stated plainly, not "as recorded"
		j.res.Limits = j.plugin.Limits
		resolved, err := params.Resolve(j.plugin.Desc.Params, pol.Params)
		if err != nil {
			return nil, fmt.Errorf("%w: scenario %s: policies[%d] %q (plugin %s): %v", ErrInput, sc.Source, i, pol.Label, pol.Plugin, err)
		}
		j.params = resolved
		j.res.Params = resolved
	}

	// At most jobs policies at once. A policy's failure is its own (it is
	// recorded in its results), so no job returns an error to the group.
	var pool errgroup.Group
	pool.SetLimit(jobs)
	for _, j := range jobsList {
		if j.res.Status == results.StatusFailed || j.res.Status == "skipped" {
			continue
		}
		pool.Go(func() error {
			if ctx.Err() != nil {
				j.res.Status = "skipped" // interrupted before its turn
				return nil
			}
			start := time.Now()
			if err := j.run(ctx, sc, e, reps, opts); err != nil {
				j.fail(err)
			} else {
				j.res.Status = results.StatusOK
			}
			j.res.Seconds = time.Since(start).Seconds()
			return nil
		})
	}
	pool.Wait()

	var failures []error
	for _, j := range jobsList {
		if j.res.Status == "skipped" || (ctx.Err() != nil && j.res.Status != results.StatusOK) {
			file.Complete = false
			continue
		}
		file.Policies = append(file.Policies, j.res)
		if j.res.Status == results.StatusFailed {
			failures = append(failures, fmt.Errorf("policy %q (plugin %s): %s", j.pol.Label, j.pol.Plugin, j.msg))
		}
	}
	if len(reps) != sc.Runs {
		file.Shard.Replications = reps
	}
	file.FillDistributions()
	if ctx.Err() != nil {
		file.Complete = false
		return file, fmt.Errorf("run interrupted: %w", ctx.Err())
	}
	if len(failures) > 0 {
		return file, fmt.Errorf("%w: %w", ErrPolicyFailed, errors.Join(failures...))
	}
	return file, nil
}

func ptr[T any](v T) *T { return &v }

type job struct {
	idx    int
	pol    scenario.Policy
	plugin *Plugin
	params map[string]any
	// feedback is the policy's feedback mode (scenario.FeedbackOf).
	feedback sdk.Feedback
	// cenv is the environment of a contextual scenario, nil otherwise.
	cenv  *env.Contextual
	res   *results.Policy
	msg   string // the error of a failed policy, without a stack
	stack string // the Go stack in its error, if any
}

// fail marks the policy failed. A Go stack in the error (a panic) is
// condensed in the message to the panic and the policy's own frame; the
// results file's error keeps the full stack after the message.
func (j *job) fail(err error) {
	j.res.Status = results.StatusFailed
	j.msg, j.stack = client.SplitPanic(err.Error())
	j.res.Error = j.msg
	if j.stack != "" {
		j.res.Error += "\n" + j.stack
	}
}

// run plays every batch of the policy and fills j.res.
func (j *job) run(ctx context.Context, sc *scenario.Scenario, e *env.Env, reps []uint64, opts Options) error {
	batch := opts.Batch
	if batch <= 0 {
		// Two sessions by default, so that they can overlap (see below);
		// one when the batch is too small for that to pay.
		batch = len(reps)
		if len(reps) >= 64 {
			batch = (len(reps) + 1) / 2
		}
	}
	batch = min(batch, len(reps))
	cps := sc.Checkpoints
	n := len(reps)
	var recorded [metric.Count][][]float64
	for m := range recorded {
		recorded[m] = make([][]float64, len(cps))
		for c := range cps {
			recorded[m][c] = make([]float64, n)
		}
	}
	var pv [][]float64 // a contextual run's pv_loss, [c][i]
	var probs *probTally
	if j.cenv != nil {
		pv = make([][]float64, len(cps))
		for c := range cps {
			pv[c] = make([]float64, n)
		}
		probs = newProbTally(n)
	}
	diagNames := j.plugin.Desc.Diagnostics
	diagCP := diagCheckpoints(cps, sc.K()*sc.InitPulls)
	if cells := len(diagNames) * len(diagCP) * n; cells > MaxDiagnosticCells {
		// Checked before anything is allocated: what a plugin declares
		// must not be able to exhaust the host's memory.
		return fmt.Errorf("the plugin declares %d diagnostics: at %d checkpoints x %d replications that is %d values to keep, more than the %d bench allows; declare fewer diagnostics",
			len(diagNames), len(diagCP), n, cells, MaxDiagnosticCells)
	}
	diag := make([][][]float64, len(diagNames)) // [d][c][i]
	for d := range diag {
		diag[d] = make([][]float64, len(diagCP))
		for c := range diag[d] {
			diag[d][c] = make([]float64, n)
		}
	}
	var prog *tally
	if opts.Progress != nil {
		prog = &tally{f: opts.Progress, label: j.pol.Label, total: int64(n) * int64(sc.Horizon)}
		prog.add(0)
	}
	// Sessions of one policy run concurrently, so the host's work on one
	// batch (rewards, metrics, encoding) overlaps the plugin's on another.
	type span struct{ lo, hi int }
	var spans []span
	for lo := 0; lo < n; lo += batch {
		spans = append(spans, span{lo, min(lo+batch, n)})
	}
	conc := opts.Sessions
	if conc <= 0 {
		conc = 2
	}
	// The first session to fail fails the policy and stops its siblings
	// (the group's context), whose own errors would only be the
	// cancellation; the group keeps the first error.
	pctx := ctx
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for _, sp := range spans {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			lo, hi := sp.lo, sp.hi
			rn := newRunner(j, sc, e, reps[lo:hi], diagCP, &opts)
			rn.prog = prog
			if probs != nil {
				rn.probs = probs.slice(lo, hi)
			}
			if opts.RoundsLog != nil {
				rn.log = opts.RoundsLog.Session(j.pol.Label, reps[lo:hi], sc.Horizon)
				rn.entries = make([]roundslog.Entry, hi-lo)
			}
			tr, dg, err := rn.play(ctx)
			if rn.log != nil {
				if err != nil {
					rn.log.Abort()
				} else {
					rn.log.Close()
				}
			}
			if err != nil {
				return err
			}
			for m := range recorded {
				for c := range cps {
					copy(recorded[m][c][lo:hi], tr.Recorded[m][c])
				}
			}
			for c := range pv {
				copy(pv[c][lo:hi], tr.PV[c])
			}
			for d := range diag {
				if d < len(dg) {
					for c := range diagCP {
						copy(diag[d][c][lo:hi], dg[d][c])
					}
				}
			}
			return nil
		})
	}
	if firstErr := g.Wait(); firstErr != nil {
		if pctx.Err() != nil {
			return pctx.Err()
		}
		return firstErr
	}
	metrics := map[string][][]float64{}
	for m, name := range metric.Names {
		metrics[name] = recorded[m]
	}
	if pv != nil {
		metrics[metric.PVLoss] = pv
		j.res.Probs = probs.summary()
	}
	var diags map[string]results.DiagTrace
	if len(diagNames) > 0 && len(diagCP) > 0 {
		diags = map[string]results.DiagTrace{}
		for d, name := range diagNames {
			diags[name] = results.DiagTrace{Checkpoints: diagCP, Rows: diag[d]}
		}
	}
	j.res.Summarize(cps, metrics, diags, opts.Traces)
	return nil
}

// tally counts the replication-rounds one policy has played over all its
// sessions and reports them to Options.Progress. Its sessions run
// concurrently: the lock makes each call see a count at least that of the
// call before, as Options.Progress promises.
type tally struct {
	f     func(label string, done, total int64)
	label string
	total int64 // replications x horizon

	mu   sync.Mutex
	done int64
}

// add counts n more replication-rounds and reports the count; a nil tally
// does nothing.
func (p *tally) add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.f(p.label, p.done, p.total)
}

// diagCheckpoints are the checkpoints at which the policy itself chose:
// after the host-forced initial rounds.
func diagCheckpoints(cps []int, initRounds int) []int {
	i := sort.SearchInts(cps, initRounds+1)
	return cps[i:]
}
