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
// launched as bench launches it (client.Launch), once per transport it offers:
// the step socket when it offers one, the Steps stream when Describe reports
// it, and the unary Step.
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
// launched it is killed.
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
	"testing"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

// Option changes what the kit's sessions declare or how large they are.
type Option func(*config)

type config struct {
	family       sdk.Family
	noiseSD      float64
	noiseKnown   bool
	params       map[string]any
	arms         int
	horizon      int
	reps         int
	batchReps    int
	singles      int
	seed         uint64
	startTimeout time.Duration
	exitWithin   time.Duration
	only         map[string]bool // check only these rules (and handshake); nil: all
}

func newConfig(opts []Option) config {
	c := config{family: sdk.Gaussian, noiseSD: 1, noiseKnown: true,
		arms: 4, horizon: 100, reps: 6, batchReps: 40, singles: 8, seed: 20240611,
		startTimeout: 10 * time.Second, exitWithin: 2 * time.Second}
	for _, o := range opts {
		o(&c)
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

// WithSize sets the number of arms, the horizon and the replications per
// session of the general cases (default 4 arms, 100 rounds, 6 replications).
// The batch-split case uses max(40, replications) replications so that the
// SDK spreads them over several goroutines.
func WithSize(arms, horizon, replications int) Option {
	return func(c *config) {
		c.arms, c.horizon, c.reps = arms, horizon, replications
		c.batchReps = max(c.batchReps, replications)
	}
}

// Quick makes every rule cheaper: 3 arms, 40 rounds, 3 replications, a
// batch of 12 of which 4 are replayed alone. It catches the same kinds of
// violation, with less chance of catching a rare one.
func Quick() Option {
	return func(c *config) {
		c.arms, c.horizon, c.reps, c.batchReps, c.singles = 3, 40, 3, 12, 4
	}
}

// WithSeed sets the scenario seed of the sessions.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithStartTimeout bounds an executable's start-up, to the end of its first
// Describe (default 10s, as bench's --start-timeout).
func WithStartTimeout(d time.Duration) Option { return func(c *config) { c.startTimeout = d } }

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
	Doc       string // the rule's explanation
	Transport string
	Err       error  // nil: the rule holds
	Skipped   string // why the rule was not checked; "" when it was
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
// instance, and reports a broken rule with its explanation. Rules that need
// an executable (parent-death) are skipped.
func Run(t *testing.T, p sdk.Plugin, opts ...Option) {
	runT(t, inProcess(p, newConfig(opts)))
}

// RunExecutable is Run for the plugin executable at path, in any language:
// it is launched as bench launches it, once per rule and transport, and
// must also exit when the process that launched it dies.
func RunExecutable(t *testing.T, path string, opts ...Option) {
	runT(t, executable(path, newConfig(opts)))
}

func runT(t *testing.T, s *suite) {
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
					t.Errorf("%v\nrule: %s", res.Err, res.Doc)
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
// use outside go test.
func TestPlugin(p sdk.Plugin, opts ...Option) error {
	var errs []error
	inProcess(p, newConfig(opts)).run(context.Background(), func(r Result) {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w\n  rule: %s", r.Name(), r.Err, r.Doc))
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("sdktest: plugin %s does not conform:\n%w", p.Name, errors.Join(errs...))
	}
	return nil
}

// CheckExecutable runs every rule against the plugin executable at path,
// over every transport it offers, and calls report with each result as it
// comes, in the catalogue's order. A plugin that does not start fails the
// handshake rule and every other rule is reported skipped. It returns the
// transports used.
func CheckExecutable(ctx context.Context, path string, report func(Result), opts ...Option) []string {
	return executable(path, newConfig(opts)).run(ctx, report)
}

// run checks every rule, the per-transport ones over each transport.
func (s *suite) run(ctx context.Context, report func(Result)) []string {
	var trs []*transport
	var names []string
	broken := ""
	for _, r := range catalogue {
		if !s.cfg.wants(r.Name) {
			continue
		}
		if broken != "" {
			report(Result{Rule: r.Name, Doc: r.Doc, Skipped: broken})
			continue
		}
		if r.once {
			res := s.check(ctx, r, nil)
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
			report(s.check(ctx, r, tr))
		}
	}
	return names
}

// check runs rule r over transport tr (nil: the suite's default one).
func (s *suite) check(ctx context.Context, r Rule, tr *transport) Result {
	res := Result{Rule: r.Name, Doc: r.Doc}
	if tr != nil {
		res.Transport = tr.name
	} else {
		tr = s.main
	}
	h := s.target(ctx, tr)
	defer h.closeAll()
	err := errors.Join(r.check(h), h.rec.err())
	var skip skipError
	if errors.As(err, &skip) {
		res.Skipped = string(skip)
		return res
	}
	res.Err = err
	return res
}

// skipError marks a rule that does not apply to a plugin.
type skipError string

func (e skipError) Error() string { return string(e) }
