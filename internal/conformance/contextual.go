package conformance

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// The contextual rules (protocol 3, docs/contextual.md), checked when the
// plugin reports contextual in Describe and skipped otherwise. The kit's
// contexts are drawn from (salt, replication, round, value index) only,
// so every path, batch and instance sees the same contexts; its rewards
// stay those of the context-free sessions, a function of (replication,
// arm, pull count): the rules are about the protocol, not about learning.
// A plugin that reports contextual_only is refused the context-free
// sessions of the other rules, which it skips.

// Limits of the kit's contexts: dimensions of 1..maxCtxDim (up to 8 per
// arm with per-arm features), drawn log-uniformly, so that a round's
// contexts stay small beside its other costs.
const (
	maxCtxDim    = 64
	maxPerArmDim = 8
)

// kitContext is value j of replication r's context in round t, in
// [-2, 2): a function of (salt, r, t, j) only.
func kitContext(salt, r uint64, t, j int) float64 {
	h := seed.Mix(seed.Mix(seed.Mix(r^0x636f6e74657874^salt)^uint64(t)) ^ uint64(j))
	return 4*float64(h>>11)/(1<<53) - 2
}

// contextual draws a general contextual session: sizes as session's, no
// forced rounds (contextual scenarios have none), and a context shape
// drawn from the check's plan.
func (p *plan) contextual(d draw) spec {
	s := p.session(d)
	s.initPulls = 0
	if p.r.IntN(3) == 0 {
		s.context = sdk.ContextShape{Dim: p.intIn(1, maxPerArmDim), PerArm: true}
	} else {
		s.context = sdk.ContextShape{Dim: p.intIn(1, maxCtxDim)}
	}
	return s
}

// contextualTarget describes the plugin and skips a contextual rule for a
// plugin that does not report contextual.
func contextualTarget(h *Target) (client.Conn, error) {
	c, d, err := h.describe()
	if err != nil {
		return nil, err
	}
	if d.ProtocolVersion < client.ContextualVersion || !d.Contextual {
		return nil, skipError(fmt.Sprintf("the plugin does not play contextual sessions (protocol %d, contextual %v)", d.ProtocolVersion, d.Contextual))
	}
	return c, nil
}

// skipContextFree skips a rule that plays context-free sessions for a
// plugin that plays only contextual ones.
func skipContextFree(h *Target) error {
	_, d, err := h.describe()
	if err != nil {
		return err
	}
	if d.ContextualOnly {
		return skipError("the plugin plays only contextual sessions (contextual_only); the contextual rules check it")
	}
	return nil
}

// The contextual rules' names.
const (
	ruleContextualArms          = "contextual-arms"
	ruleContextualDeterministic = "contextual-deterministic"
	ruleContextualBatchSplit    = "contextual-batch-split"
	ruleContextualOnly          = "contextual-only"
)

var contextualRules = []Rule{
	{
		Name: ruleContextualArms,
		explain: text("protocol 3, for a plugin that reports contextual: in contextual sessions (a context of dim " +
			"features, or of dim features per arm) with random contexts, every Step returns one arm per replication " +
			"in 0..K-1 and, when it reports probabilities, one per replication, each 0 (not said) or in (0, 1], " +
			"for every round up to the horizon, a long session included"),
		contextual: true,
		check: func(h *Target) error {
			c, err := contextualTarget(h)
			if err != nil {
				return err
			}
			if _, err := h.playAll(c, h.plan.contextual(draw{})); err != nil {
				return err
			}
			if h.fast {
				l := h.plan.long(1)
				l.initPulls, l.context = 0, sdk.ContextShape{Dim: h.plan.intIn(1, 16)}
				_, err = h.playAll(c, l)
			}
			return err
		},
	},
	{
		Name: ruleContextualDeterministic,
		explain: func(v vocab) string {
			return "protocol 3, for a plugin that reports contextual: the same seed, replications, contexts and " +
				"rewards give the same arms and the same probabilities, on a reused instance as on a fresh one and " +
				"over every transport as over the reference (in process; for an executable, unary Step): a " +
				"contextual policy's randomness comes only from " + v.rand
		},
		contextual: true,
		check: func(h *Target) error {
			c1, err := contextualTarget(h)
			if err != nil {
				return err
			}
			c2, err := h.fresh()
			if err != nil {
				return err
			}
			ref, err := h.connOver(h.s.ref)
			if err != nil {
				return fmt.Errorf("reference: %w", err)
			}
			s := h.plan.contextual(draw{div: 2, minSelect: 100})
			first, err := h.playAll(c1, s)
			if err != nil {
				return err
			}
			var errs []error
			for _, o := range []struct {
				what string
				c    client.Conn
			}{{"the same plugin instance, played again", c1}, {"a fresh plugin instance", c2}, {h.tr.name + " against " + h.s.ref.name, ref}} {
				p, err := h.playAll(o.c, s)
				if err != nil {
					return errors.Join(append(errs, fmt.Errorf("%s: %w", o.what, err))...)
				}
				errs = append(errs, sameArms(o.what, p, first), sameProbs(o.what, p, first))
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: ruleContextualBatchSplit,
		explain: func(v vocab) string {
			return "protocol 3, for a plugin that reports contextual: replication r's arms and probabilities depend " +
				"only on (seed, r), its own contexts and its own rewards: not on which other replications share its " +
				"session, their order, nor their contexts (a batch gives the same as the reversed batch, as the " +
				"batch with every other replication's contexts changed, and as each replication alone; common " +
				"random numbers). A policy sharing one random source across a batch, or reading another " +
				"replication's context, fails it: draw from " + v.batchRand
		},
		contextual: true,
		check: func(h *Target) error {
			c, err := contextualTarget(h)
			if err != nil {
				return err
			}
			s := h.plan.contextual(draw{div: 4, minReps: 2, minSelect: 100})
			if h.cfg.fixed != nil {
				s.reps = h.plan.reps(max(h.cfg.fixed.reps, h.cfg.sizes.batch))
			}
			n := len(s.reps)
			batch, err := h.playAll(c, s)
			if err != nil {
				return fmt.Errorf("batch of %d: %w", n, err)
			}
			var errs []error
			differ := func(what string, got *player, i, j int) {
				if k := firstDiff(got.arms[j], batch.arms[i]); k >= 0 {
					errs = append(errs, fmt.Errorf("%s it pulls arm %d, in the batch arm %d (round %d, replication %d)",
						what, at(got.arms[j], k), at(batch.arms[i], k), k+1, s.reps[i]))
				} else if k := firstProbDiff(got.probs[j], batch.probs[i]); k >= 0 {
					errs = append(errs, fmt.Errorf("%s it reports probability %v, in the batch %v (round %d, replication %d)",
						what, got.probs[j][k], batch.probs[i][k], k+1, s.reps[i]))
				}
			}
			rs := s
			rs.reps = slices.Clone(s.reps)
			slices.Reverse(rs.reps)
			reversed, err := h.playAll(c, rs)
			if err != nil {
				return fmt.Errorf("reversed batch: %w", err)
			}
			for i := range n {
				differ(fmt.Sprintf("in the reversed batch (position %d, not %d)", n-1-i, i), reversed, i, n-1-i)
			}
			// Every replication's contexts but the first's changed.
			other := s
			other.otherSalt = h.plan.r.Uint64() | 1
			others, err := h.playAll(c, other)
			if err != nil {
				return fmt.Errorf("batch with the other replications' contexts changed: %w", err)
			}
			differ("with the other replications' contexts changed", others, 0, 0)
			for _, i := range sample(n, h.cfg.sizes.singles) {
				if len(errs) >= 7 {
					break
				}
				one := s
				one.reps = []uint64{s.reps[i]}
				p, err := h.playAll(c, one)
				if err != nil {
					return errors.Join(append(errs, fmt.Errorf("replication %d alone: %w", one.reps[0], err))...)
				}
				differ("alone", p, i, 0)
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: ruleContextualOnly,
		explain: text("protocol 3, for a plugin that reports contextual_only: a context-free session is refused at " +
			"Open, saying so, and its context-free rules are skipped"),
		contextual: true,
		check: func(h *Target) error {
			c, d, err := h.describe()
			if err != nil {
				return err
			}
			if !d.ContextualOnly {
				return skipError("the plugin does not report contextual_only")
			}
			s := h.plan.session(draw{div: 4})
			h.sessions = append(h.sessions, s)
			h.dog.begin(call{what: "Open"})
			sess, err := c.Open(h.ctx, &client.OpenRequest{
				Arms: s.arms, Horizon: s.horizon, Replications: s.reps, Seed: s.seed,
				Family: h.cfg.family, NoiseSD: h.cfg.noiseSD, NoiseKnown: h.cfg.noiseKnown,
				InitPulls: s.initPulls, Params: s.params,
			})
			h.dog.end()
			if err == nil {
				sess.Close(h.ctx)
				return fmt.Errorf("a context-free session (%s) opened on a plugin that reports contextual_only", s)
			}
			return nil
		},
	},
}

// sameProbs compares two players' probabilities replication by
// replication, bit for bit.
func sameProbs(what string, got, want *player) error {
	var errs []error
	for i := range want.probs {
		if j := firstProbDiff(got.probs[i], want.probs[i]); j >= 0 {
			errs = append(errs, fmt.Errorf("%s: probability %v, want %v (round %d, replication %d)",
				what, probAt(got.probs[i], j), probAt(want.probs[i], j), j+1, want.s.reps[i]))
		}
		if len(errs) == 3 {
			errs = append(errs, errors.New("(further differences not shown)"))
			break
		}
	}
	return errors.Join(errs...)
}

func firstProbDiff(a, b []float64) int {
	for j := range max(len(a), len(b)) {
		if j >= len(a) || j >= len(b) || math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			return j
		}
	}
	return -1
}

func probAt(a []float64, j int) float64 {
	if j < len(a) {
		return a[j]
	}
	return math.NaN()
}
