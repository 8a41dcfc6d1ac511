package conformance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// transport connects the kit to a fresh instance of a plugin.
type transport struct {
	name string
	conn func(ctx context.Context) (client.Conn, func(), error)
	// idle is an executable's instance a passed check left over this
	// transport, all its sessions closed, for the next check's conn to
	// reuse (see Target.conn); nil when there is none.
	idle *instance
}

// instance is a plugin instance the kit connected to, and how to close it.
type instance struct {
	c     client.Conn
	close func()
}

// closeIdle closes the instances passed checks left for reuse.
func (s *suite) closeIdle() {
	for _, tr := range s.all {
		if tr.idle != nil {
			tr.idle.close()
			tr.idle = nil
		}
	}
}

// suite is a plugin under test: how to reach it over each transport, and
// what the kit knows of it besides.
type suite struct {
	suiteState
	cfg    Config
	all    []*transport // every transport, for rules checked over each
	main   *transport   // the transport of rules checked once
	ref    *transport   // the reference transports-agree compares against
	fast   *transport   // the fastest, over which rules also play long sessions
	plugin *sdk.Plugin  // a plugin value: as declared (before watch); nil for an executable
	rec    func() *recorder
	exe    string // an executable's path; "" for a plugin value
}

// inProcess is the suite of a plugin value: in process with no RPC, and
// over go-plugin with the rounds on the step socket (what bench uses with
// a Go plugin), on gRPC's Steps stream and on unary Step (a non-Go plugin
// may serve only the latter). Each check watches the policies it creates.
func inProcess(p sdk.Plugin, cfg Config) *suite {
	s := &suite{cfg: cfg, plugin: &p}
	var rec *recorder
	s.rec = func() *recorder { rec = &recorder{}; return rec }
	watched := func() sdk.Plugin { return watch(p, rec) }
	local := &transport{name: "local", conn: func(context.Context) (client.Conn, func(), error) {
		c, err := client.NewLocal(watched())
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}}
	served := func(name string, opts client.StartOptions) *transport {
		return &transport{name: name, conn: func(ctx context.Context) (client.Conn, func(), error) {
			return serveConn(ctx, watched(), opts, cfg.startTimeout)
		}}
	}
	s.all = []*transport{local, served("socket", client.StartOptions{}),
		served("grpc", client.StartOptions{NoSocket: true}), served("grpc-unary", client.StartOptions{NoStream: true})}
	s.main, s.ref, s.fast = s.all[1], local, local
	return s
}

// serveConn serves p over go-plugin in this process and connects to it.
func serveConn(ctx context.Context, p sdk.Plugin, opts client.StartOptions, startTimeout time.Duration) (client.Conn, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	rc, err := client.ServeInProcess(ctx, p)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	c, err := client.Attach(rc, opts)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	// The client uses the Steps stream only after Describe reports it,
	// as the host does.
	if _, err := describe(ctx, c, startTimeout); err != nil {
		c.Close()
		cancel()
		return nil, nil, err
	}
	return c, func() { c.Close(); cancel() }, nil
}

// executable is the suite of a plugin executable, which start launches,
// as bench launches it, for every connection.
func executable(path string, start Launcher, cfg Config) *suite {
	s := &suite{cfg: cfg, exe: path, rec: func() *recorder { return &recorder{} }}
	launched := func(name string, opts client.StartOptions) *transport {
		opts.StartTimeout = cfg.startTimeout
		return &transport{name: name, conn: func(ctx context.Context) (client.Conn, func(), error) {
			c, err := start(path, opts)
			if err != nil {
				return nil, nil, err
			}
			// Describe is part of starting, as in bench: it enables the
			// Steps stream when the plugin serves it.
			d, err := describe(ctx, c, cfg.startTimeout)
			if err != nil {
				c.Close()
				return nil, nil, err
			}
			s.described(d.SDK)
			return c, func() { c.Close() }, nil
		}}
	}
	s.all = []*transport{launched("socket", client.StartOptions{}),
		launched("grpc", client.StartOptions{NoSocket: true}), launched("grpc-unary", client.StartOptions{NoStream: true})}
	s.main, s.ref, s.fast = s.all[0], s.all[2], s.all[0]
	return s
}

// describe asks c to describe itself within the start timeout, and says
// so when it does not answer in time.
func describe(ctx context.Context, c client.Conn, timeout time.Duration) (*client.Description, error) {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d, err := c.Describe(dctx)
	if err != nil && ctx.Err() == nil && dctx.Err() == context.DeadlineExceeded {
		err = timeoutError(err, call{what: "Describe"}, "start", timeout)
	}
	return d, err
}

// transports returns the transports rules are checked over: for an
// executable, those it offers (the grpc one only when Describe reports the
// Steps stream: without it, it would repeat grpc-unary). A plugin that
// does not start keeps them all, each failing on its own.
func (s *suite) transports(ctx context.Context) []*transport {
	if s.exe == "" {
		return s.all
	}
	// On the instance the rules checked once left, if they passed.
	in := s.main.idle
	s.main.idle = nil
	if in == nil {
		c, closeFn, err := s.main.conn(ctx)
		if err != nil {
			return s.all
		}
		in = &instance{c, closeFn}
	}
	d, err := describe(ctx, in.c, s.cfg.startTimeout)
	if err != nil {
		in.close()
		return s.all
	}
	s.main.idle = in
	if d.StepStream {
		return s.all
	}
	return []*transport{s.all[0], s.all[2]}
}

// Target is a plugin under test over one transport, as a rule's check sees
// it: each fresh is a fresh instance, closed when the check ends; conn is
// one too, or, for an executable, the instance the last passed check over
// the same transport left (see conn).
type Target struct {
	ctx      context.Context
	dog      *watchdog // times Open, Step and Close; it ends ctx on a timeout
	cfg      Config
	s        *suite
	tr       *transport
	rec      *recorder
	plan     *plan // draws the check's sessions
	fast     bool  // tr is the suite's fastest transport: play long sessions too
	closers  []func()
	sessions []spec // every session opened, for Result.Sessions
	// reusable is the check's first instance from conn, which an
	// executable's check that passes leaves to the next check over its
	// transport; nil before conn.
	reusable *instance
}

// conn returns an instance of the plugin over the target's transport, on
// which the check's sessions are closed before it ends. For an
// executable it is the instance the last passed check over the same
// transport used, if any, else a fresh one. Starting a process is most
// of what a check of a Python plugin costs (the interpreter, numpy and
// grpc), and the kit's checks already play many sessions, one after
// another, on one instance, as a run's batches do; a rule that needs a
// fresh instance (deterministic-seed, independent-sessions,
// transports-agree's reference) asks for one with fresh. A plugin value
// (Run) is always fresh: it costs nothing to start. A check that fails
// closes its instances, so the next check starts afresh.
func (h *Target) conn() (client.Conn, error) {
	if h.reusable != nil || h.s.exe == "" {
		return h.fresh()
	}
	if in := h.tr.idle; in != nil {
		h.tr.idle = nil
		h.reusable = in
		return in.c, nil
	}
	c, closeFn, err := h.launch(h.tr)
	if err != nil {
		return nil, err
	}
	h.reusable = &instance{c, closeFn}
	return c, nil
}

// fresh returns a fresh instance of the plugin over the target's
// transport, closed when the check ends.
func (h *Target) fresh() (client.Conn, error) { return h.connOver(h.tr) }

// describe connects over the target's transport and asks the plugin to
// describe itself, as every rule about its declaration starts.
func (h *Target) describe() (client.Conn, *client.Description, error) {
	c, err := h.conn()
	if err != nil {
		return nil, nil, err
	}
	d, err := describe(h.ctx, c, h.cfg.startTimeout)
	if err != nil {
		return nil, nil, fmt.Errorf("describe: %w", err)
	}
	return c, d, nil
}

// connOver returns a fresh instance of the plugin over tr, closed when the
// check ends.
func (h *Target) connOver(tr *transport) (client.Conn, error) {
	c, closeFn, err := h.launch(tr)
	if err != nil {
		return nil, err
	}
	h.closers = append(h.closers, closeFn)
	return c, nil
}

// launch connects to a fresh instance over tr.
func (h *Target) launch(tr *transport) (client.Conn, func(), error) {
	c, closeFn, err := tr.conn(h.ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting over %s: %w", tr.name, err)
	}
	return c, closeFn, nil
}

// closeAll closes the check's instances; when the check passed (or does
// not apply), its instance from conn is left to the next check over its
// transport instead.
func (h *Target) closeAll(passed bool) {
	for i := len(h.closers) - 1; i >= 0; i-- {
		h.closers[i]()
	}
	if in := h.reusable; in != nil {
		if passed {
			h.tr.idle = in
		} else {
			in.close()
		}
	}
}

// spec is one session the kit plays.
type spec struct {
	arms, horizon, initPulls int
	reps                     []uint64
	seed                     uint64
	params                   map[string]any
	diagEvery                int  // ask for diagnostics every diagEvery rounds; 0: never
	sameRewards              bool // every replication sees replication 0's rewards
	feedback                 sdk.Feedback
	// context, set, makes a contextual session (protocol 3), whose
	// contexts are kitContext's; with otherSalt nonzero every
	// replication's but the first's are drawn with it instead.
	context   sdk.ContextShape
	otherSalt uint64
}

// sessionList describes the sessions the check opened, in order, each
// distinct one once with the number of times it was played.
func (h *Target) sessionList() []string {
	var out []string
	var counts []int
	at := map[string]int{}
	for _, s := range h.sessions {
		d := s.String()
		if i, ok := at[d]; ok {
			counts[i]++
			continue
		}
		at[d] = len(out)
		out = append(out, d)
		counts = append(counts, 1)
	}
	for i, n := range counts {
		if n > 1 {
			out[i] = fmt.Sprintf("%s (x%d)", out[i], n)
		}
	}
	return out
}

// indices returns the replication indices from..from+n-1.
func indices(from, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(from + i)
	}
	return out
}

// player plays one session round by round against the kit's environment,
// checking every answer, and records the arms chosen.
type player struct {
	s     spec
	h     *Target
	sess  client.SessionConn
	cfg   Config
	round int
	prevA []int32
	prevR []float64
	pulls [][]int     // pulls[i][arm] so far, replication position i
	arms  [][]int32   // arms[i][t-1]
	probs [][]float64 // probs[i][t-1] in a contextual session (0: not said)
	ctx   []float64   // the round's contexts, reused
	diags [][]float64 // diagnostics of the last round asked for, as returned
	// Under delayed feedback: when rewards arrive, and those not yet
	// arrived.
	sched *feedback.Schedule
	mail  *feedback.Mailbox
}

// kitDelay is the geometric delay of the kit's reward of round t of
// replication r: a function of (r, t), so that every path sees the same
// delays.
func kitDelay(mean float64, r uint64, t int) int {
	u := float64(seed.Mix(seed.Mix(r^0x64656c6179)^uint64(t))>>11+1) / (1 << 53) // (0, 1]
	return feedback.GeometricDelay(u, mean)
}

func (h *Target) open(c client.Conn, s spec) (*player, error) {
	h.sessions = append(h.sessions, s)
	h.dog.begin(call{what: "Open"})
	sess, err := c.Open(h.ctx, &client.OpenRequest{
		Arms: s.arms, Horizon: s.horizon, Replications: s.reps, Seed: s.seed,
		Family: h.cfg.family, NoiseSD: h.cfg.noiseSD, NoiseKnown: h.cfg.noiseKnown,
		InitPulls: s.initPulls, Params: s.params, Feedback: s.feedback, Context: s.context,
	})
	h.dog.end()
	if err != nil {
		return nil, fmt.Errorf("open (%s): %w", s, err)
	}
	p := &player{s: s, h: h, sess: sess, cfg: h.cfg, pulls: make([][]int, len(s.reps)), arms: make([][]int32, len(s.reps))}
	if s.context.Contextual() {
		p.ctx = make([]float64, len(s.reps)*s.context.Width(s.arms))
		p.probs = make([][]float64, len(s.reps))
	}
	if s.feedback.Delayed() {
		p.sched = feedback.NewSchedule(s.feedback, func(i, t int) int { return kitDelay(s.feedback.Mean, s.reps[i], t) })
		p.mail = feedback.NewMailbox(len(s.reps), s.horizon)
	}
	for i := range p.pulls {
		p.pulls[i] = make([]int, s.arms)
		p.arms[i] = make([]int32, 0, s.horizon)
	}
	return p, nil
}

// done reports whether the session has played its horizon.
func (p *player) done() bool { return p.round >= p.s.horizon }

// step plays the next round and checks the answer.
func (p *player) step() error {
	ctx := p.h.ctx
	t := p.round + 1
	want := p.s.diagEvery > 0 && t%p.s.diagEvery == 0
	delayed := p.s.feedback.Delayed()
	st := client.Step{Round: t, PrevArms: p.prevA, WantDiag: want}
	if delayed {
		st.Arrivals = p.mail.Take(t)
	} else {
		st.PrevRewards = p.prevR
	}
	if p.ctx != nil {
		w := p.s.context.Width(p.s.arms)
		for i, r := range p.s.reps {
			salt := uint64(0)
			if i > 0 {
				salt = p.s.otherSalt
			}
			for j := range w {
				p.ctx[i*w+j] = kitContext(salt, r, t, j)
			}
		}
		st.Contexts = p.ctx
	}
	p.h.dog.begin(call{what: "Step", round: t})
	res, err := p.sess.Step(ctx, &st)
	p.h.dog.end()
	if err != nil {
		if pe := (*client.PluginError)(nil); errors.As(err, &pe) {
			return err // it names the round already
		}
		return fmt.Errorf("round %d: %w", t, err)
	}
	n := len(p.s.reps)
	if len(res.Arms) != n {
		return fmt.Errorf("%d arms returned for %d replications (round %d)", len(res.Arms), n, t)
	}
	if p.ctx != nil {
		if err := client.CheckProbs(res.Probs, n); err != nil {
			return fmt.Errorf("round %d: the plugin %w", t, err)
		}
		for i := range n {
			prob := 0.0
			if res.Probs != nil {
				prob = res.Probs[i]
			}
			p.probs[i] = append(p.probs[i], prob)
		}
	}
	if want {
		p.diags = p.diags[:0]
		for _, d := range res.Diagnostics {
			p.diags = append(p.diags, slices.Clone(d))
		}
	}
	p.prevA = slices.Grow(p.prevA[:0], n)[:n]
	p.prevR = slices.Grow(p.prevR[:0], n)[:n]
	forced := t <= p.s.arms*p.s.initPulls
	for i, a := range res.Arms {
		if a < 0 || int(a) >= p.s.arms {
			return fmt.Errorf("arm %d outside 0..%d (round %d, replication %d)", a, p.s.arms-1, t, p.s.reps[i])
		}
		if forced && int(a) != (t-1)%p.s.arms {
			return fmt.Errorf("arm %d during the initial pulls, want (t-1) mod K = %d (round %d, replication %d)",
				a, (t-1)%p.s.arms, t, p.s.reps[i])
		}
		p.arms[i] = append(p.arms[i], a)
		p.prevA[i] = a
		key := p.s.reps[i]
		if p.s.sameRewards {
			key = p.s.reps[0]
		}
		p.prevR[i] = p.cfg.reward(key, int(a), p.pulls[i][a], p.s.arms)
		p.pulls[i][a]++
		if delayed {
			p.mail.Post(p.sched.Due(t, i), i, t, a, p.prevR[i])
		}
	}
	p.round = t
	return nil
}

// play runs the rest of the session and closes it.
func (p *player) play() error {
	for !p.done() {
		if err := p.step(); err != nil {
			return err
		}
	}
	return p.close()
}

func (p *player) close() error {
	p.h.dog.begin(call{what: "Close"})
	err := p.sess.Close(p.h.ctx)
	p.h.dog.end()
	if err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

// playAll opens a session of s on c and plays it to the end.
func (h *Target) playAll(c client.Conn, s spec) (*player, error) {
	p, err := h.open(c, s)
	if err != nil {
		return nil, err
	}
	return p, p.play()
}

// mean is the kit's mean of arm a of k: spread evenly over [0.3, 0.7],
// decreasing with the index, so the best arm is arm 0.
func mean(a, k int) float64 {
	if k < 2 {
		return 0.5
	}
	return 0.7 - 0.4*float64(a)/float64(k-1)
}

// reward is the reward of the n-th pull (0-based) of arm a in replication
// r: a function of (r, a, n) only, so every path sees the same rewards.
func (c Config) reward(r uint64, a, n, k int) float64 {
	h := seed.Mix(seed.Mix(seed.Mix(r^0x6b69747265776172)^uint64(a)) ^ uint64(n))
	u1 := float64(h>>11+1) / (1 << 53) // (0, 1]
	u2 := float64(seed.Mix(h)>>11) / (1 << 53)
	mu := mean(a, k)
	if c.family == sdk.Bernoulli {
		if u1 <= mu {
			return 1
		}
		return 0
	}
	// Box-Muller: a standard normal from two uniforms.
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	return mu + c.noiseSD*z
}

// sameArms compares two players' arms replication by replication.
func sameArms(what string, got, want *player) error {
	var errs []error
	for i := range want.arms {
		if j := firstDiff(got.arms[i], want.arms[i]); j >= 0 {
			errs = append(errs, fmt.Errorf("%s: arm %d, want %d (round %d, replication %d)",
				what, at(got.arms[i], j), at(want.arms[i], j), j+1, want.s.reps[i]))
		}
		if len(errs) == 3 {
			errs = append(errs, errors.New("(further differences not shown)"))
			break
		}
	}
	return errors.Join(errs...)
}

func firstDiff(a, b []int32) int {
	for j := range max(len(a), len(b)) {
		if j >= len(a) || j >= len(b) || a[j] != b[j] {
			return j
		}
	}
	return -1
}

func at(a []int32, j int) int32 {
	if j < len(a) {
		return a[j]
	}
	return -1
}

// recorder collects violations seen inside the plugin, where the policies
// run (possibly on several goroutines).
type recorder struct {
	mu   sync.Mutex
	errs []error
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) < 5 {
		r.errs = append(r.errs, fmt.Errorf(format, args...))
	}
}

func (r *recorder) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.errs...)
}

// watch wraps p's per-replication policies so the kit sees Select calls
// from the inside. A BatchPolicy is left alone: its forced rounds are
// checked on the answers only.
func watch(p sdk.Plugin, rec *recorder) sdk.Plugin {
	if p.New == nil {
		return p
	}
	inner := p.New
	p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
		pol, err := inner(s, r)
		if err != nil || pol == nil {
			return pol, err
		}
		w := &watched{Policy: pol, rec: rec, init: s.InitRounds(), index: r.Index}
		if d, ok := pol.(sdk.Diagnoser); ok {
			return &watchedDiag{watched: w, d: d}, nil
		}
		return w, nil
	}
	return p
}

type watched struct {
	sdk.Policy
	rec   *recorder
	init  int
	index uint64
}

func (w *watched) Select(t int) int {
	if t <= w.init {
		w.rec.add("replication %d: Select(%d) was called during the host-forced initial rounds 1..%d", w.index, t, w.init)
	}
	return w.Policy.Select(t)
}

type watchedDiag struct {
	*watched
	d sdk.Diagnoser
}

func (w *watchedDiag) Diagnose(out []float64) { w.d.Diagnose(out) }
