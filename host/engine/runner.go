package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/roundslog"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

// runner plays one batch of a policy's replications through one plugin
// session, in the steps play calls: launch opens the session, watchdog
// bounds every call to the plugin by the step timeout, round plays one
// round, and finish (or abort, when the session failed) closes it. A
// runner plays once; it is used by one goroutine, but for its watchdog.
type runner struct {
	sc     *scenario.Scenario
	env    *env.Env
	reps   []uint64 // the batch: global replication indices
	opts   *Options // StepTimeout set
	job    *job     // the policy: its label, plugin, parameters, feedback
	diagCP []int    // the rounds whose diagnostics are asked for (diagCheckpoints)

	k, horizon, initRounds int

	// inPlay is the round in play, 0 while the session opens; the watchdog
	// reads it, and sets timedOut when it cut a call short.
	inPlay   atomic.Int64
	timedOut atomic.Bool

	sess client.SessionConn

	streams []*env.Stream
	tr      *metric.Tracker
	diag    [][][]float64 // [d][c][i], the rows of diagCP asked so far
	dc      int           // the next index in diagCP
	arms    []int32       // this round's, reused
	rewards []float64     // this round's, reused
	prevA   []int32       // the previous round's arms (nil in round 1)
	prevR   []float64     // and rewards, under immediate feedback
	st      client.Step   // the round's Step, one per session rather than one allocation per round
	// Under delayed feedback rewards wait in the mailbox until they are
	// due; the tracker observes them when they arrive (design §5). Both
	// are nil under immediate feedback.
	sched *feedback.Schedule
	mail  *feedback.Mailbox
	every int // rounds between Progress calls

	// prog is the policy's count for Options.Progress (nil without), and
	// reported the last round of this session counted in it.
	prog     *tally
	reported int

	// In a contextual session: every replication's stream, the round's
	// contexts (two buffers, used in turn, so that the previous round's
	// stay intact while a plugin in process may still read them), the
	// regrets of the round's pulls, and the tally of the probabilities
	// reported (set by the job).
	cstreams []*env.ContextStream
	ctxBuf   [2][]float64
	regrets  []float64
	width    int
	probs    *probTally
	// log, when the run keeps a rounds log, receives each round's
	// entries (Options.RoundsLog), filled in entries.
	log     *roundslog.Session
	entries []roundslog.Entry
}

// newRunner prepares the batch reps of j: the reward streams, the metric
// tracker and the buffers of its rounds. opts.StepTimeout must be set.
func newRunner(j *job, sc *scenario.Scenario, e *env.Env, reps []uint64, diagCP []int, opts *Options) *runner {
	n := len(reps)
	r := &runner{
		sc: sc, env: e, reps: reps, opts: opts, job: j, diagCP: diagCP,
		k: sc.K(), horizon: sc.Horizon, initRounds: sc.K() * sc.InitPulls,
		streams: make([]*env.Stream, n),
		tr:      newTracker(n, e, sc.Checkpoints),
		diag:    make([][][]float64, len(j.plugin.Desc.Diagnostics)),
		arms:    make([]int32, n),
		rewards: make([]float64, n),
		every:   max(sc.Horizon/100, 1),
	}
	if ce := j.cenv; ce != nil {
		r.streams = nil
		r.tr = metric.NewTracker(n, nil, 0, 0, sc.Checkpoints)
		r.tr.Contextual()
		r.cstreams = make([]*env.ContextStream, n)
		for i, rep := range reps {
			r.cstreams[i] = ce.Stream(rep, sc.Horizon)
		}
		r.width = ce.Width()
		r.ctxBuf = [2][]float64{make([]float64, n*r.width), make([]float64, n*r.width)}
		r.regrets = make([]float64, n)
	} else {
		for i, rep := range reps {
			r.streams[i] = e.Stream(rep)
		}
		if e.Changing() {
			r.tr.Dynamic(r.k)
		}
	}
	for d := range r.diag {
		r.diag[d] = make([][]float64, len(diagCP))
	}
	if j.feedback.Delayed() {
		var draw func(i, t int) int
		if j.feedback.Kind == sdk.Geometric {
			// One stream of delays per replication, drawn once per round.
			delays := make([]*rand.Rand, n)
			for i, rep := range reps {
				delays[i] = e.Delays(rep)
			}
			mean := j.feedback.Mean
			draw = func(i, _ int) int { return env.GeometricDelay(delays[i], mean) }
		}
		r.sched = feedback.NewSchedule(j.feedback, draw)
		r.mail = feedback.NewMailbox(n, sc.Horizon)
	}
	return r
}

// newTracker is the metric tracker of n replications of the context-free
// environment e; nil for a contextual run, whose runner makes its own.
func newTracker(n int, e *env.Env, cps []int) *metric.Tracker {
	if e == nil {
		return nil
	}
	return metric.NewTracker(n, e.Gaps(), e.Best(), e.Second(), cps)
}

// play opens the session, plays every round and closes the session. It
// returns the tracker holding the batch's metrics and the diagnostics
// ([d][c][i]).
func (r *runner) play(ctx context.Context) (*metric.Tracker, [][][]float64, error) {
	ctx, cancel := r.watchdog(ctx)
	defer cancel()
	if err := r.launch(ctx); err != nil {
		return nil, nil, err
	}
	for t := 1; t <= r.horizon; t++ {
		if err := r.round(ctx, t); err != nil {
			r.abort(ctx)
			return nil, nil, err
		}
	}
	if err := r.finish(ctx); err != nil {
		return nil, nil, err
	}
	return r.tr, r.diag, nil
}

// watchdog returns a context that ends with ctx, or when opening the
// session or a round takes longer than the step timeout; r.timedOut then
// tells why. It costs nothing per round but the atomic store of r.inPlay.
// Cancelling the returned context stops the watchdog.
func (r *runner) watchdog(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	timeout := r.opts.StepTimeout
	go func() {
		tick := time.NewTicker(min(timeout/4+time.Millisecond, time.Second))
		defer tick.Stop()
		last, since := int64(-1), time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				if t := r.inPlay.Load(); t != last {
					last, since = t, now
				} else if now.Sub(since) > timeout {
					r.timedOut.Store(true)
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// launch opens the plugin session of the batch.
func (r *runner) launch(ctx context.Context) error {
	// The noise sd is sent only when the scenario declares it known to the
	// learner (design §3): a plugin learns nothing else about the arms.
	spec := r.sc.Environment
	noiseSD := 0.0
	if spec.IsNoiseKnown() {
		noiseSD = spec.NoiseSD
	}
	var shape wire.ContextShape
	if c := r.sc.Context; c != nil {
		// A contextual model's noise sd is known to the learner.
		noiseSD = c.NoiseSD
		shape = wire.ContextShape{Dim: c.D(), PerArm: c.PerArm}
	}
	sess, err := r.job.plugin.Conn.Open(ctx, &client.OpenRequest{
		Arms: r.k, Horizon: r.horizon, Replications: r.reps, Seed: env.PolicySeed(r.sc.Seed), Family: r.sc.Family(),
		NoiseSD: noiseSD, NoiseKnown: spec.IsNoiseKnown(),
		InitPulls: r.sc.InitPulls, Params: r.job.params, Feedback: r.job.feedback,
		Context: shape,
	})
	if err != nil {
		return fmt.Errorf("opening a session: %w", stepErr(err, r.timedOut.Load(), r.opts.StepTimeout))
	}
	r.sess = sess
	return nil
}

// round plays round t: it delivers the rewards due, asks the plugin for
// the arms, checks its answer, draws the rewards and records the metrics.
// An error names the round.
func (r *runner) round(ctx context.Context, t int) error {
	r.inPlay.Store(int64(t))
	wantDiag := len(r.diag) > 0 && r.dc < len(r.diagCP) && r.diagCP[r.dc] == t
	// One Step per round, from here to the plugin's policy runner: the
	// previous round's arms, and its rewards or, under delayed feedback,
	// the rewards arriving now.
	r.st = client.Step{Round: t, PrevArms: r.prevA, WantDiag: wantDiag}
	if r.mail != nil {
		r.st.Arrivals = r.mail.Take(t)
		for _, a := range r.st.Arrivals {
			r.tr.Observe(a.Index, a.Arm, a.Reward)
		}
	} else {
		r.st.PrevRewards = r.prevR
	}
	if r.cstreams != nil {
		// Round t's contexts, one block for the batch.
		buf := r.ctxBuf[t&1]
		for i, s := range r.cstreams {
			s.Next(buf[i*r.width : (i+1)*r.width])
		}
		r.st.Contexts = buf
	}
	res, err := r.sess.Step(ctx, &r.st)
	if err != nil {
		err = stepErr(err, r.timedOut.Load(), r.opts.StepTimeout)
		if _, ok := errors.AsType[*client.PluginError](err); ok {
			return err // it names the round
		}
		return fmt.Errorf("round %d: %w", t, err)
	}
	if err := r.check(t, res, wantDiag); err != nil {
		return err
	}
	if r.cstreams != nil {
		return r.contextual(t, res.Probs)
	}
	arms, rewards, streams := r.arms, r.rewards, r.streams
	if r.env.Changing() {
		// The means of round t: the rewards and the metrics follow them;
		// the plugin is told nothing (design §3).
		for i, s := range streams {
			if p := s.Path(); p.Advance(t) {
				r.tr.Set(i, p.Gaps(), p.Best(), p.Second())
			}
		}
	}
	for i, a := range arms {
		rewards[i] = streams[i].Pull(int(a))
	}
	if r.mail != nil {
		r.tr.Pull(t, arms)
		for i, a := range arms {
			r.mail.Post(r.sched.Due(t, i), i, t, a, rewards[i])
		}
		r.prevA = arms
	} else {
		r.tr.Round(t, arms, rewards)
		r.prevA, r.prevR = arms, rewards
	}
	if r.prog != nil && (t%r.every == 0 || t == r.horizon) {
		r.prog.add(int64(len(r.reps)) * int64(t-r.reported))
		r.reported = t
	}
	return nil
}

// contextual completes round t of a contextual session once the arms are
// checked: it checks and counts the probabilities reported, draws the
// rewards and records the metrics.
func (r *runner) contextual(t int, probs []float64) error {
	if probs != nil {
		if len(probs) != len(r.arms) {
			return fmt.Errorf("round %d: plugin returned %d probabilities for %d replications", t, len(probs), len(r.arms))
		}
		for i, q := range probs {
			if !(q == 0 || q > 0 && q <= 1) {
				return fmt.Errorf("round %d: replication %d: plugin returned probability %v for arm %d; want 0 (not said) or a number in (0, 1]", t, r.reps[i], q, r.arms[i])
			}
		}
	}
	if r.probs != nil {
		r.probs.add(probs)
	}
	for i, a := range r.arms {
		r.rewards[i], r.regrets[i] = r.cstreams[i].Pull(int(a))
	}
	r.tr.RoundContextual(t, r.regrets, r.rewards)
	if r.log != nil {
		r.logRound(t, probs)
	}
	r.prevA, r.prevR = r.arms, r.rewards
	if r.prog != nil && (t%r.every == 0 || t == r.horizon) {
		r.prog.add(int64(len(r.reps)) * int64(t-r.reported))
		r.reported = t
	}
	return nil
}

// logRound gives round t of every replication to the rounds log, once
// its rewards are drawn.
func (r *runner) logRound(t int, probs []float64) {
	for i, a := range r.arms {
		row, class, oracle := r.cstreams[i].Logged(int(a))
		e := roundslog.Entry{Row: int32(row), Arm: a, Class: int32(class), Reward: r.rewards[i], Regret: r.regrets[i], Oracle: oracle}
		if probs != nil {
			e.Prob = probs[i]
		}
		r.entries[i] = e
	}
	r.log.Round(t, r.entries)
}

// check checks the plugin's answer to round t and keeps it: the arms in
// r.arms (the host's own during the initial pulls) and the diagnostics
// asked for.
func (r *runner) check(t int, res client.StepResult, wantDiag bool) error {
	arms := r.arms
	if len(res.Arms) != len(arms) {
		return fmt.Errorf("round %d: plugin returned %d arms for %d replications", t, len(res.Arms), len(arms))
	}
	if t <= r.initRounds {
		// The host enforces the initial pulls whatever the plugin says.
		for i := range arms {
			arms[i] = int32((t - 1) % r.k)
		}
	} else {
		for i, a := range res.Arms {
			if a < 0 || int(a) >= r.k {
				return fmt.Errorf("round %d: replication %d: plugin returned arm %d, want 0..%d", t, r.reps[i], a, r.k-1)
			}
			arms[i] = a
		}
	}
	if !wantDiag {
		return nil
	}
	if len(res.Diagnostics) != len(r.diag) {
		return fmt.Errorf("round %d: plugin returned %d diagnostics, it declared %d", t, len(res.Diagnostics), len(r.diag))
	}
	for d := range r.diag {
		vals := res.Diagnostics[d]
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("round %d: replication %d: plugin returned diagnostic %q = %v; diagnostics must be finite numbers",
					t, r.reps[i], r.job.plugin.Desc.Diagnostics[d], v)
			}
		}
		r.diag[d][r.dc] = append([]float64(nil), vals...)
	}
	r.dc++
	return nil
}

// finish closes the session once every round is played. An interruption
// from now on must not lose the session, so closing has a timeout of its
// own instead of ctx; but once interrupted, it gets only closeGrace more,
// so that a plugin that hangs in Close cannot hold up the exit (the
// session is then lost).
func (r *runner) finish(ctx context.Context) error {
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.StepTimeout)
	defer ccancel()
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(closeGrace, ccancel) })
	defer stopGrace()
	if err := r.sess.Close(cctx); err != nil {
		return fmt.Errorf("closing the session: %w", stepErr(err, cctx.Err() == context.DeadlineExceeded, r.opts.StepTimeout))
	}
	return nil
}

// abort releases a failed session in the plugin if it still answers,
// without waiting long for a plugin in trouble.
func (r *runner) abort(ctx context.Context) {
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), min(r.opts.StepTimeout, 5*time.Second))
	r.sess.Close(cctx)
	ccancel()
}

// closeGrace is how long closing a session whose rounds are all played may
// still take once the run is interrupted.
const closeGrace = 5 * time.Second

// stepErr replaces the cancellation error of a call the step-timeout
// watchdog cut short by what happened, keeping the plugin's name and last
// stderr lines.
func stepErr(err error, timedOut bool, timeout time.Duration) error {
	if !timedOut {
		return err
	}
	msg := fmt.Errorf("no answer within the step timeout %v (--step-timeout)", timeout)
	if pe, ok := errors.AsType[*client.PluginError](err); ok {
		c := *pe
		c.Err = msg
		return &c
	}
	return fmt.Errorf("%w: %v", msg, err)
}
