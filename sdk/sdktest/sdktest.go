// Package sdktest is a conformance kit for regretbench policy plugins, in
// the manner of testing/slogtest: a table of named rules, each with an
// explanation of what it enforces, run over both the in-process path
// (sdk.NewLocal) and real go-plugin round trips (sdk.ServeInProcess and
// sdk.Attach, with the rounds on the step socket, the Steps stream and the
// unary Step).
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
// The kit plays its own environment: arm means spread over [0.3, 0.7] and
// rewards derived only from (replication, arm, pull count), so every path
// sees the same rewards (the host's common random numbers, DESIGN §4). By
// default rewards are gaussian with noise sd 1 known to the learner;
// WithFamily, WithNoise and WithParams change what the sessions declare.
//
// The rules: only valid arms are returned; the host-forced initial pulls are
// honoured without consulting Select; a seed makes the policy deterministic
// (different seeds usually give different arms too, but the kit does not
// require it: a deterministic policy such as KL-UCB ignores the seed);
// sessions are independent; the batch and per-replication paths agree;
// the transports agree; diagnostics are passive; Describe's parameters
// round-trip; and the edge cases K = 2, horizon = K and a horizon shorter
// than the initial pulls survive.
package sdktest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// Option changes what the kit's sessions declare or how large they are.
type Option func(*config)

type config struct {
	family     sdk.Family
	noiseSD    float64
	noiseKnown bool
	params     map[string]any
	arms       int
	horizon    int
	reps       int
	batchReps  int
	seed       uint64
}

func newConfig(opts []Option) config {
	c := config{family: sdk.Gaussian, noiseSD: 1, noiseKnown: true,
		arms: 4, horizon: 100, reps: 6, batchReps: 40, seed: 20240611}
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

// WithSeed sets the scenario seed of the sessions.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// Run runs every rule of the kit as a subtest of t, each over every
// transport as a sub-subtest with a fresh plugin instance, and reports a
// broken rule with its explanation.
func Run(t *testing.T, p sdk.Plugin, opts ...Option) {
	cfg := newConfig(opts)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, tr := range transports {
				t.Run(tr.name, func(t *testing.T) {
					if err := runCase(t.Context(), cfg, p, tc, tr); err != nil {
						t.Errorf("%v\nrule: %s", err, tc.explanation)
					}
				})
			}
		})
	}
}

// TestPlugin runs every rule over every transport and returns the
// violations joined, or nil when p conforms; for use outside go test.
func TestPlugin(p sdk.Plugin, opts ...Option) error {
	cfg := newConfig(opts)
	var errs []error
	for _, tc := range cases {
		for _, tr := range transports {
			if err := runCase(context.Background(), cfg, p, tc, tr); err != nil {
				errs = append(errs, fmt.Errorf("%s/%s: %w\n  rule: %s", tc.name, tr.name, err, tc.explanation))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("sdktest: plugin %s does not conform:\n%w", p.Name, errors.Join(errs...))
	}
	return nil
}

func runCase(ctx context.Context, cfg config, p sdk.Plugin, tc testCase, tr transport) error {
	rec := &recorder{}
	h := &harness{ctx: ctx, cfg: cfg, plugin: watch(p, rec), declared: p, rec: rec, tr: tr}
	defer h.closeAll()
	err := tc.check(h)
	return errors.Join(err, rec.err())
}
