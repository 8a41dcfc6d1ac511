// Package conformance is the conformance kit's engine: the catalogue of
// rules (cases.go), the sessions they play (plan.go) against the kit's own
// environment (harness.go), and the runners. Plugin authors reach it
// through sdk/sdktest, which checks a plugin value in process and over
// go-plugin served in process; bench conform (host/conform) checks an
// executable in any language, which it launches itself (Launcher), under
// the sandbox it chooses. So one catalogue checks both, and the two can
// never disagree, while an author's tests link nothing of the host: this
// package imports neither internal/launch nor internal/sandbox.
//
// The rules, the sizes of the sessions and the timeouts are documented
// for authors in package sdktest's documentation.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// Option changes what the kit's sessions declare or how large they are.
type Option func(*Config)

// Config is what the options set; its zero value is not used (newConfig).
type Config struct {
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
}

// fixedSize is WithSize's: the general sessions' arms, horizon and
// replications.
type fixedSize struct{ arms, horizon, reps int }

func newConfig(opts []Option) Config {
	c := Config{family: sdk.Gaussian, noiseSD: 1, noiseKnown: true, sizes: fullSizes,
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
func WithFamily(f sdk.Family) Option { return func(c *Config) { c.family = f } }

// WithNoise sets the gaussian noise sd of the environment and whether the
// sessions declare it known to the learner (default 1, known).
func WithNoise(sd float64, known bool) Option {
	return func(c *Config) { c.noiseSD, c.noiseKnown = sd, known }
}

// WithParams sets the parameter values every session is opened with
// (default none: the plugin's declared defaults).
func WithParams(p map[string]any) Option { return func(c *Config) { c.params = p } }

// WithSize fixes the number of arms, the horizon and the replications per
// session of the general sessions, which are otherwise drawn from the seed
// (see the package documentation). The batch-split rule plays a batch of
// max(40, replications) (12 with Quick) so that the SDK spreads it over
// several goroutines; the long sessions keep their length, with these arms.
func WithSize(arms, horizon, replications int) Option {
	return func(c *Config) { c.fixed = &fixedSize{arms: arms, horizon: horizon, reps: replications} }
}

// Quick makes every rule cheaper: general sessions of at most 300 rounds
// (one in 8 a round one of 2,000 or 3,000 instead), 100 replications and
// 2,000 replication-rounds, and 4 replications of the batch replayed
// alone. It keeps the long sessions. It catches the
// same kinds of violation, with less chance of catching a rare one.
func Quick() Option { return func(c *Config) { c.sizes = quickSizes } }

// WithSeed sets the kit's seed, from which every session's policy seed and
// sizes are drawn (default: $REGRETBENCH_SDKTEST_SEED, else random).
func WithSeed(seed uint64) Option { return func(c *Config) { c.seed, c.seedSet = seed, true } }

// WithStartTimeout bounds a plugin's start-up, to the end of its first
// Describe, and every Describe (default 10s, as bench's --start-timeout).
func WithStartTimeout(d time.Duration) Option { return func(c *Config) { c.startTimeout = d } }

// WithStepTimeout bounds each call of Open, Step and Close (default 30s;
// bench conform's --step-timeout). A plugin that does not answer in time
// fails the rule, and is closed (an executable is killed).
func WithStepTimeout(d time.Duration) Option { return func(c *Config) { c.stepTimeout = d } }

// WithRules checks only the named rules of the catalogue (see Rules), and
// the handshake rule, which every other rule depends on.
func WithRules(names ...string) Option {
	return func(c *Config) {
		c.only = map[string]bool{ruleHandshake: true}
		for _, n := range names {
			c.only[n] = true
		}
	}
}

// wants reports whether rule name is to be checked.
func (c Config) wants(name string) bool { return c.only == nil || c.only[name] }

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

// Launcher starts a fresh process of the plugin executable at path and
// completes the handshake, with opts' StartTimeout, NoSocket and NoStream
// (its other fields are unset), as bench launches it (host/conform's,
// through internal/launch, under the sandbox bench conform chose).
type Launcher func(path string, opts client.StartOptions) (client.Conn, error)

// RunExecutable is Run for the plugin executable at path, in any language,
// which start launches: over every transport it offers (a process a check
// passed on goes on to the next check), and it must also exit when the
// process that launched it dies (see ServeIntermediate).
func RunExecutable(t *testing.T, path string, start Launcher, opts ...Option) {
	runT(t, executable(path, start, newConfig(shortOpts(opts))))
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
			// report reports into the test of the check, the rule's or
			// the transport's subtest: Skip and Errorf belong to it.
			report := func(t *testing.T, res Result) {
				switch {
				case res.Skipped != "":
					t.Skip(res.Skipped)
				case res.Err != nil:
					t.Errorf("%v\nrule: %s\nsessions: %s\nseed %s (replay: %s=%s)", res.Err, res.Doc,
						strings.Join(res.Sessions, "; "), seed, seedEnv, seed)
				}
			}
			if r.once {
				report(t, s.check(t.Context(), r, nil))
				return
			}
			for _, tr := range s.transports(t.Context()) {
				t.Run(tr.name, func(t *testing.T) { report(t, s.check(t.Context(), r, tr)) })
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
// which start launches,
// over every transport it offers, and calls report with each result as it
// comes, in the catalogue's order. A plugin that does not start fails the
// handshake rule and every other rule is reported skipped. It returns the
// transports used. When ctx ends, it returns at once, without reporting
// the check it interrupted or any after it.
func CheckExecutable(ctx context.Context, path string, start Launcher, report func(Result), opts ...Option) []string {
	cfg := newConfig(opts)
	if cfg.seedErr != nil {
		report(Result{Rule: ruleHandshake, Doc: catalogue[0].Doc, Err: cfg.seedErr})
		return nil
	}
	return executable(path, start, cfg).run(ctx, report)
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
	var err error
	if !r.once && !r.contextual {
		err = skipContextFree(h)
	}
	if err == nil {
		err = r.check(h)
	}
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
