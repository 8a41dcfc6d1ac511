// Package sdktest is the conformance kit for regretbench policy plugins, in
// the manner of testing/slogtest: one catalogue of named rules (Rules), each
// with an explanation of what it enforces. The same catalogue checks a Go
// plugin value in process and over real go-plugin round trips (Run,
// TestPlugin), and a plugin executable in any language (`bench conform`),
// so the two can never disagree.
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
// A plugin value is checked in process, with no transport (the reference
// the others are compared with), and over go-plugin served in this
// process, with the rounds on the step socket, the Steps stream and the
// unary Step: the paths bench takes with a plugin, without building its
// executable, so an author's tests link nothing of bench. `bench conform`
// checks the executable as bench launches it (sandboxed), over each
// transport it offers: the step socket when it offers one, the Steps
// stream when Describe reports it, and the unary Step. A check that passes
// there leaves its
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
// go test -short, Run plays Quick's sizes.
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
// launched it is killed (parent-death: `bench conform` checks it, Run
// reports it skipped). A rule's explanation names the parts of the
// plugin's own SDK (Go or Python, from the SDK its Describe reports).
//
// A plugin that reports contextual (protocol 3, docs/contextual.md) is
// also checked by the contextual rules, in sessions with the kit's own
// contexts, drawn from (replication, round) only, with no forced rounds:
// valid arms and probabilities (contextual-arms), the same arms and
// probabilities for the same seed and contexts on any instance and
// transport (contextual-deterministic), a replication's arms independent
// of its batch and of the other replications' contexts
// (contextual-batch-split), and, for one that reports contextual_only,
// the refusal of a context-free session (contextual-only). They are
// skipped for other plugins; a contextual_only plugin skips the rules
// that play context-free sessions.
package sdktest

import (
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/conformance"
	"github.com/regretbench/regretbench/sdk"
)

// Option changes what the kit's sessions declare or how large they are.
type Option func(*config)

// config is what the options set.
type config = conformance.Config

// kit returns the kit's options of opts.
func kit(opts []Option) []conformance.Option {
	out := make([]conformance.Option, len(opts))
	for i, o := range opts {
		out[i] = conformance.Option(o)
	}
	return out
}

// WithFamily sets the reward family the sessions declare and the kit's
// environment draws from (default sdk.Gaussian). Bernoulli rewards are 0 or
// 1 with the arm's mean as success probability.
func WithFamily(f sdk.Family) Option { return Option(conformance.WithFamily(f)) }

// WithNoise sets the gaussian noise sd of the environment and whether the
// sessions declare it known to the learner (default 1, known).
func WithNoise(sd float64, known bool) Option { return Option(conformance.WithNoise(sd, known)) }

// WithParams sets the parameter values every session is opened with
// (default none: the plugin's declared defaults).
func WithParams(p map[string]any) Option { return Option(conformance.WithParams(p)) }

// WithSize fixes the number of arms, the horizon and the replications per
// session of the general sessions, which are otherwise drawn from the seed
// (see the package documentation). The batch-split rule plays a batch of
// max(40, replications) (12 with Quick) so that the SDK spreads it over
// several goroutines; the long sessions keep their length, with these arms.
func WithSize(arms, horizon, replications int) Option {
	return Option(conformance.WithSize(arms, horizon, replications))
}

// Quick makes every rule cheaper: general sessions of at most 300 rounds
// (one in 8 a round one of 2,000 or 3,000 instead), 100 replications and
// 2,000 replication-rounds, and 4 replications of the batch replayed
// alone. It keeps the long sessions. It catches the
// same kinds of violation, with less chance of catching a rare one.
func Quick() Option { return Option(conformance.Quick()) }

// WithSeed sets the kit's seed, from which every session's policy seed and
// sizes are drawn (default: $REGRETBENCH_SDKTEST_SEED, else random).
func WithSeed(seed uint64) Option { return Option(conformance.WithSeed(seed)) }

// WithStartTimeout bounds a plugin's start-up, to the end of its first
// Describe, and every Describe (default 10s, as bench's --start-timeout).
func WithStartTimeout(d time.Duration) Option { return Option(conformance.WithStartTimeout(d)) }

// WithStepTimeout bounds each call of Open, Step and Close (default 30s;
// bench conform's --step-timeout). A plugin that does not answer in time
// fails the rule, and is closed.
func WithStepTimeout(d time.Duration) Option { return Option(conformance.WithStepTimeout(d)) }

// WithRules checks only the named rules of the catalogue (see Rules), and
// the handshake rule, which every other rule depends on.
func WithRules(names ...string) Option { return Option(conformance.WithRules(names...)) }

// Rule is one rule of the kit: a name, and the rule it enforces in words
// for the plugin author who broke it.
type Rule struct {
	Name string
	// Doc explains the rule, in the terms of the Go SDK.
	Doc string
}

// Rules returns the kit's catalogue, in the order it checks them. Run,
// TestPlugin and `bench conform` all check exactly these.
func Rules() []Rule {
	var out []Rule
	for _, r := range conformance.Rules() {
		out = append(out, Rule{Name: r.Name, Doc: r.Doc})
	}
	return out
}

// Run runs every rule of the kit against the plugin value p as a subtest of
// t, each over every transport as a sub-subtest with a fresh plugin
// instance, and reports a broken rule with its explanation, the kit's seed
// and how to replay it. Rules that need an executable (parent-death) are
// skipped. Under go test -short the sessions are Quick's.
func Run(t *testing.T, p sdk.Plugin, opts ...Option) { conformance.Run(t, p, kit(opts)...) }

// TestPlugin runs every rule against the plugin value p over every
// transport and returns the violations joined, or nil when p conforms; for
// use outside go test. The error names the kit's seed.
func TestPlugin(p sdk.Plugin, opts ...Option) error { return conformance.TestPlugin(p, kit(opts)...) }
