package conformance

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/sdk"
)

// Rule is one rule of the kit: a name, and the rule it enforces in words
// for the plugin author who broke it.
type Rule struct {
	Name string
	// Doc explains the rule, in the terms of the Go SDK; a Result's Doc
	// uses those of the plugin's own SDK.
	Doc string
	// Once: the rule is checked once per plugin, not over every transport.
	once bool
	// contextual: the rule plays contextual sessions (the others are
	// skipped for a plugin that plays only those).
	contextual bool
	check      func(h *Target) error
	// explain returns Doc in the terms of an SDK.
	explain func(v vocab) string
}

// doc explains the rule in the terms of vocabulary v.
func (r Rule) doc(v vocab) string { return r.explain(v) }

// Once reports whether the rule is checked once per plugin, not over
// every transport.
func (r Rule) Once() bool { return r.once }

// Rules returns the kit's catalogue, in the order it checks them. Run,
// TestPlugin, RunExecutable, CheckExecutable and `bench conform` all check
// exactly these.
func Rules() []Rule { return slices.Clone(catalogue) }

// Names of the rules the runners treat specially.
const (
	ruleHandshake = "handshake"
)

func init() {
	for i := range catalogue {
		catalogue[i].Doc = catalogue[i].explain(vocabGo)
	}
}

// text is an explanation that no SDK's terms change.
func text(s string) func(vocab) string { return func(vocab) string { return s } }

// catalogue is the table every runner drives.
var catalogue = []Rule{
	{
		Name: ruleHandshake,
		explain: text("the plugin starts as bench starts it: its first line on stdout is go-plugin's handshake " +
			"(nothing may be printed to stdout before it), and it answers Describe within the start timeout"),
		once: true,
		check: func(h *Target) error {
			_, err := h.conn()
			return err
		},
	},
	{
		Name: "describe",
		explain: text("Describe reports a non-empty name and version and the protocol version negotiated (1, 2 or 3); a valid parameter " +
			"schema (known types, unique names, bounds and allowed values that fit the " +
			"type and admit the default); each default in its declared type on the wire (an int default " +
			"sent as a float is refused); diagnostics named and unique; and an executable is named " +
			"bench-plugin-NAME after the name it reports"),
		once:  true,
		check: checkDescribe,
	},
	{
		Name: "valid-arms",
		explain: text("every Step returns exactly one arm per replication of the session, each in 0..K-1, " +
			"for every round up to the horizon, in sessions of any size a scenario may have (a long one " +
			"included: 20,000 rounds or more); Open, Step and Close succeed on a well-formed session"),
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			if _, err := h.playAll(c, h.plan.session(draw{})); err != nil {
				return err
			}
			if h.fast {
				_, err = h.playAll(c, h.plan.long(1))
			}
			return err
		},
	},
	{
		Name: "delayed-feedback",
		explain: func(v vocab) string {
			return "protocol 2 (skipped for a protocol 1 plugin): under delayed and batched feedback ({delay: 0}, " +
				"{delay: D}, {delay: {geometric: MEAN}}, {batch: B}) the plugin takes each round's arrivals (and no " +
				"previous rewards) and returns one arm per replication in 0..K-1; with {delay: 0} it returns " +
				"exactly the arms of immediate feedback, since it learns the same rewards in the same order (" +
				v.arrivals + ")"
		},
		check: func(h *Target) error {
			c, d, err := h.describe()
			if err != nil {
				return err
			}
			if d.ProtocolVersion < client.DelayedFeedbackVersion {
				return skipError(fmt.Sprintf("the plugin speaks protocol version %d; delayed feedback needs version %d", d.ProtocolVersion, client.DelayedFeedbackVersion))
			}
			base := h.plan.session(draw{initPulls: 1 + h.plan.r.IntN(2), div: 4})
			immediate, err := h.playAll(c, base)
			if err != nil {
				return fmt.Errorf("immediate feedback: %w", err)
			}
			var errs []error
			r := h.plan.r
			for _, fb := range []sdk.Feedback{{Kind: sdk.Delay}, {Kind: sdk.Delay, Delay: h.plan.intIn(1, 50)},
				{Kind: sdk.Geometric, Mean: float64(h.plan.intIn(1, 40)) / 4}, {Kind: sdk.Batch, Batch: h.plan.intIn(2, 100)}} {
				s := base
				s.feedback = fb
				if fb.Delay > 0 || fb.Kind != sdk.Delay {
					s.seed = r.Uint64() // a session of its own
				}
				p, err := h.playAll(c, s)
				if err != nil {
					errs = append(errs, fmt.Errorf("feedback %s: %w", fb, err))
					continue
				}
				if fb == (sdk.Feedback{Kind: sdk.Delay}) {
					errs = append(errs, sameArms("feedback {delay: 0} against immediate feedback", p, immediate))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "init-pulls",
		explain: func(v vocab) string {
			return "rounds 1..K*init_pulls are forced by the host (arm (t-1) mod K in round t, design §3); " +
				"the policy receives them as ordinary observations and " + v.selectFn + " is not consulted for them"
		},
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			var errs []error
			for _, ip := range []int{1, 2, 3} {
				if _, err := h.playAll(c, h.plan.session(draw{initPulls: ip, div: 4})); err != nil {
					errs = append(errs, fmt.Errorf("init_pulls %d: %w", ip, err))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "deterministic-seed",
		explain: func(v vocab) string {
			return "the same seed, replications and rewards give the same arms, on a reused plugin instance " +
				"as on a fresh one, in short and long sessions alike: a policy's randomness comes only from " + v.rand +
				", seeded from (seed, replication) (design §4), never from the time, a global generator, or " +
				"anything else a session's size or seed could switch on; whether different seeds give different " +
				"arms is rule seed-used"
		},
		check: func(h *Target) error {
			c1, err := h.conn()
			if err != nil {
				return err
			}
			c2, err := h.fresh()
			if err != nil {
				return err
			}
			// Enough rounds that a policy drawing from the clock shows it.
			s := h.plan.session(draw{div: 2, minSelect: 100})
			first, err := h.playAll(c1, s)
			if err != nil {
				return err
			}
			again, err := h.playAll(c1, s)
			if err != nil {
				return err
			}
			fresh, err := h.playAll(c2, s)
			if err != nil {
				return err
			}
			errs := []error{sameArms("the same plugin instance, played again", again, first),
				sameArms("a fresh plugin instance", fresh, first)}
			if h.fast && h.s.exe != "" {
				l := h.plan.long(1)
				first, err := h.playAll(c1, l)
				if err != nil {
					return errors.Join(append(errs, fmt.Errorf("long session: %w", err))...)
				}
				fresh, err := h.playAll(c2, l)
				if err != nil {
					return errors.Join(append(errs, fmt.Errorf("long session, on a fresh plugin instance: %w", err))...)
				}
				errs = append(errs, sameArms(fmt.Sprintf("a long session (%d rounds), on a fresh plugin instance", l.horizon), fresh, first))
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "seed-used",
		explain: func(v vocab) string {
			return "a randomized policy draws its randomness from the session seed: when replications fed the " +
				"very same rewards choose differently (the policy is randomized), two different seeds must not " +
				"give the same arms for every replication. A policy seeded from a constant or from the " +
				"replication index alone fails (use " + v.rand + "); a deterministic policy (KL-UCB, UCB1) passes, " +
				"as its replications fed the same rewards all choose alike"
		},
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			// Enough replications and rounds that a randomized policy shows it.
			s := h.plan.session(draw{div: 2, minReps: 4, minSelect: 100})
			s.sameRewards = true
			first, err := h.playAll(c, s)
			if err != nil {
				return err
			}
			differ, round := -1, 0
			for i := 1; i < len(s.reps) && differ < 0; i++ {
				if j := firstDiff(first.arms[i], first.arms[0]); j >= 0 {
					differ, round = i, j+1
				}
			}
			if differ < 0 {
				return nil // deterministic given its rewards: the seed has nothing to do
			}
			other := s
			for other.seed == s.seed {
				other.seed = h.plan.policySeed()
			}
			second, err := h.playAll(c, other)
			if err != nil {
				return fmt.Errorf("seed %s: %w", FormatSeed(other.seed), err)
			}
			for i := range first.arms {
				if firstDiff(first.arms[i], second.arms[i]) >= 0 {
					return nil
				}
			}
			return fmt.Errorf("seeds %s and %s give the same arms for every replication, yet the policy is "+
				"randomized (fed the same rewards, replications %d and %d choose differently from round %d): "+
				"its randomness ignores the seed (seeded from a constant or the replication alone?)",
				FormatSeed(s.seed), FormatSeed(other.seed), s.reps[0], s.reps[differ], round)
		},
	},
	{
		Name: "independent-sessions",
		explain: text("sessions open at the same time on one plugin share no state: two sessions whose rounds " +
			"interleave give the same arms as each played alone (a plugin may serve several sessions at once, design §6)"),
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			sa, sb := h.plan.session(draw{div: 4}), h.plan.session(draw{div: 4})
			if h.cfg.fixed != nil {
				// Sessions of one shape could hide state they share.
				sb.arms++
				sb.reps = h.plan.reps(len(sa.reps) + 1)
				sb.horizon = max(sb.arms+1, sa.horizon-7)
			}
			a, err := h.open(c, sa)
			if err != nil {
				return err
			}
			b, err := h.open(c, sb)
			if err != nil {
				return err
			}
			for !a.done() || !b.done() {
				for _, p := range []*player{a, b} {
					if !p.done() {
						if err := p.step(); err != nil {
							return fmt.Errorf("interleaved: %w", err)
						}
					}
				}
			}
			if err := errors.Join(a.close(), b.close()); err != nil {
				return err
			}
			aloneA, err := h.playAll(c, sa)
			if err != nil {
				return err
			}
			fresh, err := h.fresh()
			if err != nil {
				return err
			}
			aloneB, err := h.playAll(fresh, sb)
			if err != nil {
				return err
			}
			return errors.Join(sameArms("session A interleaved with B", a, aloneA),
				sameArms("session B interleaved with A", b, aloneB))
		},
	},
	{
		Name: "batch-split",
		explain: func(v vocab) string {
			return "replication r's arms depend only on (seed, r) and its own rewards, not on which other " +
				"replications share its session nor on their order: a batch of replications gives the " +
				"same arms as the reversed batch and as each replication alone in its own session (the SDK's " +
				"batch-split invariance, design §4; up to 8 replications spread over the batch, and a long " +
				"session's, are replayed alone). A policy sharing one random source across the replications " +
				"of a batch fails it: draw from " + v.batchRand
		},
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			// Enough rounds that one random source shared by two
			// replications shows.
			s := h.plan.session(draw{div: 4, minReps: 2, minSelect: 100})
			if h.cfg.fixed != nil {
				s.reps = h.plan.reps(max(h.cfg.fixed.reps, h.cfg.sizes.batch))
			}
			n := len(s.reps)
			batch, err := h.playAll(c, s)
			if err != nil {
				return fmt.Errorf("batch of %d: %w", n, err)
			}
			rs := s
			rs.reps = slices.Clone(s.reps)
			slices.Reverse(rs.reps)
			reversed, err := h.playAll(c, rs)
			if err != nil {
				return fmt.Errorf("reversed batch: %w", err)
			}
			var errs []error
			for i := range n {
				if len(errs) == 3 {
					errs = append(errs, errors.New("(further differences in the reversed batch not shown)"))
					break
				}
				if a, b := batch.arms[i], reversed.arms[n-1-i]; firstDiff(a, b) >= 0 {
					j := firstDiff(a, b)
					errs = append(errs, fmt.Errorf("in the reversed batch (position %d, not %d) it pulls arm %d, in the batch arm %d (round %d, replication %d)",
						n-1-i, i, at(b, j), at(a, j), j+1, s.reps[i]))
				}
			}
			alone := func(b *player, i int, what string) error {
				one := b.s
				one.reps = []uint64{b.s.reps[i]}
				p, err := h.playAll(c, one)
				if err != nil {
					return fmt.Errorf("replication %d alone: %w", one.reps[0], err)
				}
				if j := firstDiff(p.arms[0], b.arms[i]); j >= 0 {
					errs = append(errs, fmt.Errorf("alone it pulls arm %d, in the %s arm %d (round %d, replication %d)",
						at(p.arms[0], j), what, at(b.arms[i], j), j+1, one.reps[0]))
				}
				return nil
			}
			for _, i := range sample(n, h.cfg.sizes.singles) {
				if err := alone(batch, i, fmt.Sprintf("batch of %d", n)); err != nil {
					return err
				}
				if len(errs) >= 7 {
					break
				}
			}
			if h.fast && h.s.exe != "" && len(errs) < 7 {
				l := h.plan.mid(2)
				lb, err := h.playAll(c, l)
				if err != nil {
					return errors.Join(append(errs, fmt.Errorf("batch of 2 over %d rounds: %w", l.horizon, err))...)
				}
				what := fmt.Sprintf("batch of 2 over %d rounds", l.horizon)
				for i := range 2 {
					if err := alone(lb, i, what); err != nil {
						return errors.Join(append(errs, err)...)
					}
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "transports-agree",
		explain: text("the transport is transparent: the same session gives the same arms over go-plugin " +
			"(step socket, streamed or unary Step) as in process (for an executable: as over unary Step, " +
			"in a fresh process), so a plugin cannot depend on how it is reached"),
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			ref, err := h.connOver(h.s.ref)
			if err != nil {
				return fmt.Errorf("reference: %w", err)
			}
			s := h.plan.session(draw{div: 2})
			got, err := h.playAll(c, s)
			if err != nil {
				return err
			}
			want, err := h.playAll(ref, s)
			if err != nil {
				return fmt.Errorf("over %s: %w", h.s.ref.name, err)
			}
			return sameArms(h.tr.name+" against "+h.s.ref.name, got, want)
		},
	},
	{
		Name: "diagnostics-passive",
		explain: text("asking for diagnostics changes no decision, and each declared diagnostic comes back " +
			"with one value per replication whenever asked for (the host asks at its checkpoints only)"),
		check: func(h *Target) error {
			c, d, err := h.describe()
			if err != nil {
				return err
			}
			declared := d.Diagnostics
			s := h.plan.session(draw{div: 2})
			plain, err := h.playAll(c, s)
			if err != nil {
				return err
			}
			s.diagEvery = 1 + h.plan.r.IntN(10)
			p, err := h.open(c, s)
			if err != nil {
				return err
			}
			nd := len(declared)
			for !p.done() {
				if err := p.step(); err != nil {
					return err
				}
				if p.round%s.diagEvery != 0 {
					continue
				}
				if len(p.diags) != nd {
					return fmt.Errorf("%d diagnostics returned, %d declared %q (round %d)", len(p.diags), nd, declared, p.round)
				}
				for d, vals := range p.diags {
					if len(vals) != len(s.reps) {
						return fmt.Errorf("diagnostic %q has %d values for %d replications (round %d)",
							declared[d], len(vals), len(s.reps), p.round)
					}
				}
			}
			if err := p.close(); err != nil {
				return err
			}
			return sameArms(fmt.Sprintf("with diagnostics asked every %d rounds", s.diagEvery), p, plain)
		},
	},
	{
		Name: "describe-round-trip",
		explain: func(v vocab) string {
			s := "a session opened with the described defaults spelled out gives the same arms as one that leaves them out"
			if v.lang != "go" {
				return s
			}
			return "Describe reports, over every transport, the plugin value's name, version, diagnostics and " +
				"every declared parameter with the same name, type, doc and default, the default in its type's Go " +
				"representation (float64, int64, bool, string) so it survives the wire unchanged; and " + s
		},
		check: func(h *Target) error {
			c, d, err := h.describe()
			if err != nil {
				return err
			}
			var errs []error
			bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
			if p := h.s.plugin; p != nil {
				if d.Name != p.Name || d.Version != p.Version {
					bad("describe: name %q version %q, declared %q %q", d.Name, d.Version, p.Name, p.Version)
				}
				if d.ProtocolVersion != client.ProtocolVersion {
					bad("describe: protocol version %d, want %d", d.ProtocolVersion, client.ProtocolVersion)
				}
				if !slices.Equal(d.Diagnostics, p.Diagnostics) {
					bad("describe: diagnostics %q, declared %q", d.Diagnostics, p.Diagnostics)
				}
				if len(d.Params) != len(p.Params) {
					bad("describe: %d parameters, %d declared", len(d.Params), len(p.Params))
				}
				for i, want := range p.Params {
					if canon, err := params.Coerce(want.Type, want.Default); err != nil || !reflect.DeepEqual(canon, want.Default) {
						bad("parameter %q: default %T %v is not the Go representation of type %q (want %T)",
							want.Name, want.Default, want.Default, want.Type, canon)
					}
					if i >= len(d.Params) {
						continue
					}
					got := d.Params[i]
					if got.Name != want.Name || got.Type != want.Type || got.Doc != want.Doc ||
						!reflect.DeepEqual(got.Default, want.Default) {
						bad("parameter %d: described as {%q %q %T(%v) %q}, declared {%q %q %T(%v) %q}", i,
							got.Name, got.Type, got.Default, got.Default, got.Doc,
							want.Name, want.Type, want.Default, want.Default, want.Doc)
					}
				}
			}
			if len(errs) > 0 {
				return errors.Join(errs...)
			}
			explicit := map[string]any{}
			for _, dp := range d.Params {
				explicit[dp.Name] = dp.Default
			}
			maps.Copy(explicit, h.cfg.params)
			s := h.plan.session(draw{div: 2})
			implicit, err := h.playAll(c, s)
			if err != nil {
				return err
			}
			s.params = explicit
			spelled, err := h.playAll(c, s)
			if err != nil {
				return fmt.Errorf("with the described defaults %v: %w", explicit, err)
			}
			return sameArms("with the defaults spelled out", spelled, implicit)
		},
	},
	{
		Name:    "edge-two-arms",
		explain: text("the smallest bandit, K = 2, runs to the horizon with valid arms"),
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			s := h.plan.session(draw{div: 2})
			s.arms = 2
			_, err = h.playAll(c, s)
			return err
		},
	},
	{
		Name: "edge-horizon-equals-arms",
		explain: func(v vocab) string {
			return "a horizon of K rounds, or one shorter than the K*init_pulls forced rounds, consists of " +
				"initial pulls only; the policy must open, observe and close without " + v.selectFn + " ever being called"
		},
		check: func(h *Target) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			var errs []error
			k := h.plan.arms()
			for _, e := range []struct{ arms, initPulls int }{{k, 1}, {k, 2}, {2, 1}, {2, 2}} {
				s := h.plan.session(draw{div: 4})
				s.arms, s.horizon, s.initPulls = e.arms, e.arms, e.initPulls
				if _, err := h.playAll(c, s); err != nil {
					//lint:ignore ST1005 K is the number of arms, a symbol, not a capitalised word
					errs = append(errs, fmt.Errorf("K = horizon = %d, init_pulls %d: %w", e.arms, e.initPulls, err))
				}
			}
			return errors.Join(errs...)
		},
	},
	contextualRules[0], contextualRules[1], contextualRules[2], contextualRules[3],
	{
		Name: "parent-death",
		explain: text("an executable exits on its own within 2 s when the process that launched it dies without " +
			"stopping it (SIGKILL, a crash): go-plugin does not tie a plugin's life to its host's, so the " +
			"plugin must poll its parent pid. Checked through an intermediate process that launches the " +
			"plugin, completes Describe and is then SIGKILLed"),
		once:  true,
		check: checkParentDeath,
	},
}

// sample returns up to k indices of 0..n-1 spread evenly, including the
// first and the last.
func sample(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, k)
	for j := range out {
		out[j] = j * (n - 1) / (k - 1)
	}
	return out
}

// checkDescribe checks what Describe reports, whoever the plugin is.
func checkDescribe(h *Target) error {
	_, d, err := h.describe()
	if err != nil {
		return err
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if d.Name == "" {
		bad("empty name")
	}
	if d.Version == "" {
		bad("empty version (results record it as plugin_version)")
	}
	if d.ProtocolVersion < client.MinProtocolVersion || d.ProtocolVersion > client.ProtocolVersion {
		bad("protocol version %d, want %d..%d", d.ProtocolVersion, client.MinProtocolVersion, client.ProtocolVersion)
	}
	if err := d.Validate(); err != nil {
		bad("parameter schema: %w", err)
	}
	for _, p := range d.Params {
		if canon, err := params.Coerce(p.Type, p.Default); err == nil && !reflect.DeepEqual(canon, p.Default) {
			bad("parameter %q: default %v arrives as %s, but its declared type is %s (send it as %s)",
				p.Name, p.Default, wireType(p.Default), p.Type, wireType(canon))
		}
	}
	seen := map[string]bool{}
	for _, n := range d.Diagnostics {
		switch {
		case n == "":
			bad("a diagnostic with an empty name")
		case seen[n]:
			bad("diagnostic %q declared twice", n)
		}
		seen[n] = true
	}
	if h.s.exe != "" {
		base := filepath.Base(h.s.exe)
		if want := exePrefix + d.Name; base != want {
			bad("the executable is named %s, but the plugin describes itself as %q: name it %s (bench finds "+
				"plugin NAME as bench-plugin-NAME; a copied plugin whose NAME was not changed shows here)", base, d.Name, want)
		}
	}
	return errors.Join(errs...)
}

// exePrefix is the file-name prefix of plugin executables (the host's
// registry.Prefix).
const exePrefix = "bench-plugin-"

// wireType names the protocol type a default value arrives as.
func wireType(v any) string {
	switch v.(type) {
	case float64:
		return "float"
	case int64, int:
		return "int"
	case bool:
		return "bool"
	case string:
		return "string"
	}
	return fmt.Sprintf("%T", v)
}
