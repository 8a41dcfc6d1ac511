// Package sdktest is the conformance kit for regretbench policy plugins, in
// the manner of testing/slogtest: one catalogue of named rules (Rules), each
// with an explanation of what it enforces. The same catalogue checks a Go
// plugin value in process and over real go-plugin round trips (Run,
// TestPlugin) and a plugin executable in any language (RunExecutable,
// CheckExecutable, and `bench conform`), so the two can never disagree.
//
// Call it from a plugin's own tests with the same sdk.Plugin value its main
// passes to sdk.Serve:
//
//	func TestConformance(t *testing.T) {
//		sdktest.Run(t, sdk.Plugin{Name: "ucb1", Version: "0.1.0", New: newUCB1})
//	}
//
// or, outside go test, check it with TestPlugin, which returns every
// violation joined:
//
//	if err := sdktest.TestPlugin(p); err != nil {
//		log.Fatal(err)
//	}
//
// A plugin value is checked in process (client.NewLocal) and over go-plugin
// served in process (client.ServeInProcess and client.Attach), with the rounds on
// the step socket, the Steps stream and the unary Step. An executable is
// launched as bench launches it (client.Launch), over each transport it
// offers: the step socket when it offers one, the Steps stream when
// Describe reports it, and the unary Step. A check that passes leaves its
// process to the next check over the same transport, which plays its
// sessions after the earlier ones, as a run's batches follow each other
// on one plugin (starting a Python plugin is most of what a check of it
// costs); the rules about fresh instances (deterministic-seed,
// independent-sessions, transports-agree's reference) launch their own.
// So a plugin that keeps state from one session to the next may fail a
// rule that, replayed alone (WithRules, --rule), passes: the rule
// deterministic-seed names that fault.
//
// # Seeds and sizes
//
// Every session's policy seed, number of arms, horizon, replication count
// and replication indices are drawn from one 64-bit seed, the kit's seed,
// by one rule that makes a kit session indistinguishable from a run's:
//
//   - every size is drawn over a range that holds the values the shipped
//     scenarios give a session (scenarios/*.yaml: horizons 2,000, 3,000,
//     10,000 and 20,000; K 2, 3, 10, 31 and 80; sessions of 500, 100, 50
//     and, for --audit and --replication, 1 replication);
//   - with probability 1/2 it is a round value of its range: half the
//     time one of the shipped scenarios' values, else a multiple of 10,
//     100, 1,000 or 10,000; otherwise it is log-uniform over the range;
//   - the ranges: K in 2..100; horizons from tens of rounds to 1,000 (300
//     with Quick), and in one general session in 4 (in 8 with Quick) a
//     round horizon of 2,000 to 5,000 rounds (3,000), a multiple of
//     1,000; 1 to 500 replications (100 with Quick) within 16,000
//     replications x rounds per session (2,000 with Quick); the first
//     replication 0, or anywhere below 1,000,000; policy seeds uniform
//     over 64 bits, as a run's are (a hash of the scenario seed).
//
// Over the fastest transport (in process: the path without RPC; an
// executable: the step socket) rule valid-arms also plays a long session,
// of 20,000 to 25,000 rounds (20,000 or another multiple of 1,000 half
// the time), so that a fault after round 1000 fails a rule. For an
// executable, which may be anyone's, deterministic-seed also replays a
// long session on a fresh process, and batch-split also splits a batch
// of 2 replications over 1,000 to 25,000 rounds (drawn as above). So any
// value a plugin could switch on to tell the kit from a run, a round
// horizon of a real run included, comes up in the kit's sessions with a
// probability bounded below (TestPlanRoundSizes), and a plugin that
// misbehaves only there fails. Only a session's size as a whole,
// replications x rounds, stays below a run's: a check has to finish in
// seconds.
//
// Each check (a rule over a transport) draws its sessions from the kit's
// seed and its own name only, so it replays alike whichever other rules
// run with it. The seed is random by default (crypto/rand), so that each
// run of the kit explores other sizes, and a plugin that behaves only on
// some seeds or sizes fails sooner or later rather than never. A failure
// reports the seed and the sessions; replay it with WithSeed, or, without
// changing code, by setting REGRETBENCH_SDKTEST_SEED=0x... in the
// environment of go test (go test caches results by that variable too). A
// CI that wants the same sessions on every run passes WithSeed. Under
// go test -short, Run and RunExecutable play Quick's sizes.
//
// # Timeouts
//
// Each call of Open, Step and Close must answer within the step timeout
// (WithStepTimeout, default 30s), and starting a plugin, to the end of its
// first Describe, within the start timeout (WithStartTimeout, default 10s).
// A plugin that does not fails the rule with a message naming the call and
// the timeout; the kit closes it (an executable's process is killed) and
// goes on with the next check and a fresh process. After a check hit the
// step timeout over a transport, no further check plays sessions over
// that transport, and after two checks hit it no further check plays
// sessions at all: each is reported skipped, "not run", naming the
// checks that hung. So a plugin that hangs costs about two step
// timeouts, not one per rule. In process, over the path
// without RPC (transport "local"), a call cannot be interrupted: a hang
// there is for go test's -timeout to report, with every goroutine's stack.
//
// # The environment and the rules
//
// The kit plays its own environment: arm means spread over [0.3, 0.7] and
// rewards derived only from (replication, arm, pull count), so every path
// sees the same rewards (the host's common random numbers, design §4). By
// default rewards are gaussian with noise sd 1 known to the learner;
// WithFamily, WithNoise and WithParams change what the sessions declare.
//
// The rules (see Rules for each one's explanation): the plugin starts and
// describes itself with a valid schema under its executable's name; only
// valid arms are returned; the host-forced initial pulls are honoured
// without consulting Select; a seed makes the policy deterministic, and a
// randomized policy's arms change with the seed; sessions are independent;
// a replication's arms do not depend on the batch it is played in; the
// transports agree; diagnostics are passive; Describe's parameters
// round-trip; the edge cases K = 2, horizon = K and a horizon shorter than
// the initial pulls survive; and an executable exits when the process that
// launched it is killed. A rule's explanation names the parts of the
// plugin's own SDK (Go or Python, from the SDK its Describe reports).
//
// The parent-death rule needs a process to kill between the kit and the
// plugin: it re-executes the running program (bench, or the test binary)
// with an environment variable that this package's init recognises, so
// that process launches the plugin, reports its pid and waits to be
// SIGKILLed. Whatever the outcome, the kit then kills the plugin and what
// it started.
package sdktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/sdk"
)

// Option changes what the kit's sessions declare or how large they are.
type Option func(*config)

type config struct {
	family       sdk.Family
	noiseSD      float64
	noiseKnown   bool
	params       map[string]any
	sizes        sizes
	fixed        *fixedSize // WithSize; nil: drawn from the seed
	seed         uint64
	seedSet      bool
	seedErr      error // a $REGRETBENCH_SDKTEST_SEED that does not parse
	startTimeout time.Duration
	stepTimeout  time.Duration
	exitWithin   time.Duration
	only         map[string]bool // check only these rules (and handshake); nil: all
	sandbox      *sandbox.Plan   // an executable's sandbox; nil: none
}

// WithSandbox runs an executable under the sandbox plan p, as bench runs
// plugins (bench conform passes its --sandbox); without it, or with nil,
// the kit launches the executable directly.
func WithSandbox(p *sandbox.Plan) Option { return func(c *config) { c.sandbox = p } }

// fixedSize is WithSize's: the general sessions' arms, horizon and
// replications.
type fixedSize struct{ arms, horizon, reps int }

func newConfig(opts []Option) config {
	c := config{family: sdk.Gaussian, noiseSD: 1, noiseKnown: true, sizes: fullSizes,
		startTimeout: 10 * time.Second, stepTimeout: 30 * time.Second, exitWithin: 2 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	if !c.seedSet {
		c.seed, c.seedErr = defaultSeed()
		if c.seedErr != nil {
			c.seed = NewSeed()
		}
	}
	return c
}

// WithFamily sets the reward family the sessions declare and the kit's
// environment draws from (default sdk.Gaussian). Bernoulli rewards are 0 or
// 1 with the arm's mean as success probability.
func WithFamily(f sdk.Family) Option { return func(c *config) { c.family = f } }

// WithNoise sets the gaussian noise sd of the environment and whether the
// sessions declare it known to the learner (default 1, known).
func WithNoise(sd float64, known bool) Option {
	return func(c *config) { c.noiseSD, c.noiseKnown = sd, known }
}

// WithParams sets the parameter values every session is opened with
// (default none: the plugin's declared defaults).
func WithParams(p map[string]any) Option { return func(c *config) { c.params = p } }

// WithSize fixes the number of arms, the horizon and the replications per
// session of the general sessions, which are otherwise drawn from the seed
// (see the package documentation). The batch-split rule plays a batch of
// max(40, replications) (12 with Quick) so that the SDK spreads it over
// several goroutines; the long sessions keep their length, with these arms.
func WithSize(arms, horizon, replications int) Option {
	return func(c *config) { c.fixed = &fixedSize{arms: arms, horizon: horizon, reps: replications} }
}

// Quick makes every rule cheaper: general sessions of at most 300 rounds
// (one in 8 a round one of 2,000 or 3,000 instead), 100 replications and
// 2,000 replication-rounds, and 4 replications of the batch replayed
// alone. It keeps the long sessions. It catches the
// same kinds of violation, with less chance of catching a rare one.
func Quick() Option { return func(c *config) { c.sizes = quickSizes } }

// WithSeed sets the kit's seed, from which every session's policy seed and
// sizes are drawn (default: $REGRETBENCH_SDKTEST_SEED, else random).
func WithSeed(seed uint64) Option { return func(c *config) { c.seed, c.seedSet = seed, true } }

// WithStartTimeout bounds a plugin's start-up, to the end of its first
// Describe, and every Describe (default 10s, as bench's --start-timeout).
func WithStartTimeout(d time.Duration) Option { return func(c *config) { c.startTimeout = d } }

// WithStepTimeout bounds each call of Open, Step and Close (default 30s;
// bench conform's --step-timeout). A plugin that does not answer in time
// fails the rule, and is closed (an executable is killed).
func WithStepTimeout(d time.Duration) Option { return func(c *config) { c.stepTimeout = d } }

// WithRules checks only the named rules of the catalogue (see Rules), and
// the handshake rule, which every other rule depends on.
func WithRules(names ...string) Option {
	return func(c *config) {
		c.only = map[string]bool{ruleHandshake: true}
		for _, n := range names {
			c.only[n] = true
		}
	}
}

// wants reports whether rule name is to be checked.
func (c config) wants(name string) bool { return c.only == nil || c.only[name] }

// Result is the outcome of one rule over one transport ("" for a rule
// checked once per plugin).
type Result struct {
	Rule      string
	Doc       string // the rule's explanation, in the terms of the plugin's SDK
	Transport string
	Err       error  // nil: the rule holds
	Skipped   string // why the rule was not checked; "" when it was
	// Sessions describes the sessions the check opened, in order: arms,
	// horizon, replications, policy seed (identical ones once, counted).
	Sessions []string
}

// Name is the result's name as the kit reports it: "rule/transport", or
// "rule" for a rule checked once per plugin.
func (r Result) Name() string {
	if r.Transport == "" {
		return r.Rule
	}
	return r.Rule + "/" + r.Transport
}

// Run runs every rule of the kit against the plugin value p as a subtest of
// t, each over every transport as a sub-subtest with a fresh plugin
// instance, and reports a broken rule with its explanation, the kit's seed
// and how to replay it. Rules that need an executable (parent-death) are
// skipped. Under go test -short the sessions are Quick's.
func Run(t *testing.T, p sdk.Plugin, opts ...Option) {
	runT(t, inProcess(p, newConfig(shortOpts(opts))))
}

// RunExecutable is Run for the plugin executable at path, in any language:
// it is launched as bench launches it, over every transport it offers
// (a process a check passed on goes on to the next check), and must also
// exit when the process that launched it dies.
func RunExecutable(t *testing.T, path string, opts ...Option) {
	runT(t, executable(path, newConfig(shortOpts(opts))))
}

// shortOpts makes Run and RunExecutable Quick under go test -short.
func shortOpts(opts []Option) []Option {
	if testing.Short() {
		return append([]Option{Quick()}, opts...)
	}
	return opts
}

func runT(t *testing.T, s *suite) {
	if s.cfg.seedErr != nil {
		t.Fatalf("sdktest: %v", s.cfg.seedErr)
	}
	seed := FormatSeed(s.cfg.seed)
	t.Cleanup(s.closeIdle)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sdktest: seed %s; replay with %s=%s go test, or sdktest.WithSeed(%s)", seed, seedEnv, seed, seed)
		}
	})
	for _, r := range catalogue {
		if !s.cfg.wants(r.Name) {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			report := func(res Result) {
				switch {
				case res.Skipped != "":
					t.Skip(res.Skipped)
				case res.Err != nil:
					t.Errorf("%v\nrule: %s\nsessions: %s\nseed %s (replay: %s=%s)", res.Err, res.Doc,
						strings.Join(res.Sessions, "; "), seed, seedEnv, seed)
				}
			}
			if r.once {
				report(s.check(t.Context(), r, nil))
				return
			}
			for _, tr := range s.transports(t.Context()) {
				t.Run(tr.name, func(t *testing.T) { report(s.check(t.Context(), r, tr)) })
			}
		})
	}
}

// TestPlugin runs every rule against the plugin value p over every
// transport and returns the violations joined, or nil when p conforms; for
// use outside go test. The error names the kit's seed.
func TestPlugin(p sdk.Plugin, opts ...Option) error {
	cfg := newConfig(opts)
	if cfg.seedErr != nil {
		return fmt.Errorf("sdktest: %w", cfg.seedErr)
	}
	var errs []error
	inProcess(p, cfg).run(context.Background(), func(r Result) {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w\n  rule: %s\n  sessions: %s", r.Name(), r.Err, r.Doc, strings.Join(r.Sessions, "; ")))
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("sdktest: plugin %s does not conform (seed %s):\n%w", p.Name, FormatSeed(cfg.seed), errors.Join(errs...))
	}
	return nil
}

// CheckExecutable runs every rule against the plugin executable at path,
// over every transport it offers, and calls report with each result as it
// comes, in the catalogue's order. A plugin that does not start fails the
// handshake rule and every other rule is reported skipped. It returns the
// transports used. When ctx ends, it returns at once, without reporting
// the check it interrupted or any after it.
func CheckExecutable(ctx context.Context, path string, report func(Result), opts ...Option) []string {
	cfg := newConfig(opts)
	if cfg.seedErr != nil {
		report(Result{Rule: ruleHandshake, Doc: catalogue[0].Doc, Err: cfg.seedErr})
		return nil
	}
	return executable(path, cfg).run(ctx, report)
}

// run checks every rule, the per-transport ones over each, until ctx ends.
func (s *suite) run(ctx context.Context, report func(Result)) []string {
	defer s.closeIdle()
	var trs []*transport
	var names []string
	broken := ""
	for _, r := range catalogue {
		if !s.cfg.wants(r.Name) {
			continue
		}
		if ctx.Err() != nil {
			return names
		}
		if broken != "" {
			report(Result{Rule: r.Name, Doc: r.doc(s.vocab()), Skipped: broken})
			continue
		}
		if r.once {
			res := s.check(ctx, r, nil)
			if ctx.Err() != nil {
				return names // interrupted: the result means nothing
			}
			report(res)
			if r.Name == ruleHandshake && res.Err != nil {
				broken = "the plugin does not start (see " + ruleHandshake + ")"
			}
			continue
		}
		if trs == nil {
			trs = s.transports(ctx)
			for _, tr := range trs {
				names = append(names, tr.name)
			}
		}
		for _, tr := range trs {
			res := s.check(ctx, r, tr)
			if ctx.Err() != nil {
				return names
			}
			report(res)
		}
	}
	return names
}

// check runs rule r over transport tr (nil: the suite's default one), with
// the step timeout on every call and sessions drawn from the check's name.
func (s *suite) check(ctx context.Context, r Rule, tr *transport) Result {
	res := Result{Rule: r.Name}
	if tr != nil {
		res.Transport = tr.name
	} else {
		tr = s.main
	}
	if !r.once {
		if why := s.hangSkip(tr); why != "" {
			res.Doc, res.Skipped = r.doc(s.vocab()), why
			return res
		}
	}
	cctx, dog := newWatchdog(ctx, s.cfg.stepTimeout)
	h := &Target{ctx: cctx, dog: dog, cfg: s.cfg, s: s, tr: tr, rec: s.rec(),
		plan: newPlan(s.cfg, res.Name()), fast: tr == s.fast}
	err := r.check(h)
	if c, ok := dog.timedOut(); ok {
		err = timeoutError(err, c, "step", s.cfg.stepTimeout)
		s.hung(res.Name(), tr, c)
	}
	dog.stop()
	err = errors.Join(err, h.rec.err())
	var skip skipError
	skipped := errors.As(err, &skip)
	// An instance is left to the next check only by one that passed (or
	// does not apply) uninterrupted: a check that failed, timed out or
	// was interrupted may leave a session open or the plugin broken.
	h.closeAll((err == nil || skipped) && ctx.Err() == nil)
	res.Doc = r.doc(s.vocab())
	res.Sessions = h.sessionList()
	if skipped {
		res.Skipped = string(skip)
		return res
	}
	res.Err = err
	return res
}

// vocab is the vocabulary of the plugin's SDK, once a Describe told it.
func (s *suite) vocab() vocab {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plugin != nil {
		return vocabGo
	}
	return vocabOf(s.sdk)
}

// described records what a Describe of the plugin reported.
func (s *suite) described(sdkString string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sdk = sdkString
}

// skipError marks a rule that does not apply to a plugin.
type skipError string

func (e skipError) Error() string { return string(e) }

// suiteState is the part of a suite that checks update.
type suiteState struct {
	mu  sync.Mutex
	sdk string // the SDK the plugin reports in Describe
	// The checks the step timeout cut short, and over each transport the
	// first of them: see hangSkip.
	hangs  []string
	hungOn map[*transport]string
}

// maxHangs is how many checks may hit the step timeout before the kit
// plays no more sessions: a plugin that hangs ends bench conform within
// about two step timeouts, not one per rule.
const maxHangs = 2

// hung records that check, over tr, was cut short by the step timeout in
// call c.
func (s *suiteState) hung(check string, tr *transport, c call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hangs = append(s.hangs, check)
	if s.hungOn == nil {
		s.hungOn = map[*transport]string{}
	}
	if _, ok := s.hungOn[tr]; !ok {
		s.hungOn[tr] = fmt.Sprintf("%s (%s)", check, c)
	}
}

// hangSkip says why a check over tr that plays sessions is not run after
// hangs ("" when it is): after maxHangs checks hit the step timeout, no
// check plays a session (each would wait the timeout too, likely for
// nothing); after one did over tr, no further check over tr does.
func (s *suiteState) hangSkip(tr *transport) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hangs) >= maxHangs {
		return fmt.Sprintf("not run: the plugin hit the step timeout in %s; it hangs, and each further check would wait the timeout too",
			strings.Join(s.hangs, " and "))
	}
	if first, ok := s.hungOn[tr]; ok {
		return fmt.Sprintf("not run: over %s the plugin hit the step timeout in %s; no more sessions over %s", tr.name, first, tr.name)
	}
	return ""
}
