package sdktest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/regretbench/regretbench/sdk"
)

// testCase is one rule of the kit: a name, the rule it enforces in words
// for the plugin author who broke it, and the check.
type testCase struct {
	name        string
	explanation string
	check       func(h *harness) error
}

// cases is the table both Run and TestPlugin drive.
var cases = []testCase{
	{
		name: "valid-arms",
		explanation: "every Step returns exactly one arm per replication of the session, each in 0..K-1, " +
			"for every round up to the horizon; Open, Step and Close succeed on a well-formed session",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			_, err = h.playAll(c, h.spec(indices(0, h.cfg.reps)...))
			return err
		},
	},
	{
		name: "init-pulls",
		explanation: "rounds 1..K*init_pulls are forced by the host (arm (t-1) mod K in round t, DESIGN §2); " +
			"the policy receives them as ordinary observations and Select is not consulted for them",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			var errs []error
			for _, ip := range []int{1, 2, 3} {
				s := h.spec(indices(0, h.cfg.reps)...)
				s.initPulls = ip
				s.horizon = max(s.horizon, s.arms*ip+10)
				if _, err := h.playAll(c, s); err != nil {
					errs = append(errs, fmt.Errorf("init_pulls %d: %w", ip, err))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		name: "deterministic-seed",
		explanation: "the same seed, replications and rewards give the same arms, on a reused plugin instance " +
			"as on a fresh one: a policy's randomness comes only from Replica.Rand, seeded from (seed, " +
			"replication) (DESIGN §4); different seeds usually give different arms, but that is not required",
		check: func(h *harness) error {
			c1, err := h.conn()
			if err != nil {
				return err
			}
			c2, err := h.conn()
			if err != nil {
				return err
			}
			s := h.spec(indices(3, h.cfg.reps)...)
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
			return errors.Join(sameArms("the same plugin instance, played again", again, first),
				sameArms("a fresh plugin instance", fresh, first))
		},
	},
	{
		name: "independent-sessions",
		explanation: "sessions open at the same time on one plugin share no state: two sessions whose rounds " +
			"interleave give the same arms as each played alone (a plugin may serve several sessions at once, DESIGN §3)",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			sa := h.spec(indices(0, h.cfg.reps)...)
			sb := h.spec(indices(100, h.cfg.reps+1)...)
			sb.seed++
			sb.arms++
			sb.horizon = max(sb.arms+1, sa.horizon-7)
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
						if err := p.step(h.ctx); err != nil {
							return fmt.Errorf("interleaved: %w", err)
						}
					}
				}
			}
			if err := errors.Join(a.close(h.ctx), b.close(h.ctx)); err != nil {
				return err
			}
			aloneA, err := h.playAll(c, sa)
			if err != nil {
				return err
			}
			fresh, err := h.conn()
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
		name: "batch-split",
		explanation: "replication r's arms depend only on (seed, r) and its own rewards, not on which other " +
			"replications share its session nor on their order: a batch of replications 0..n-1 gives the " +
			"same arms as the reversed batch and as each replication alone in its own session (the SDK's " +
			"batch-split invariance, DESIGN §4; up to 8 replications spread over the batch are replayed alone)",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			n := h.cfg.batchReps
			batch, err := h.playAll(c, h.spec(indices(0, n)...))
			if err != nil {
				return fmt.Errorf("batch of %d: %w", n, err)
			}
			rev := indices(0, n)
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			reversed, err := h.playAll(c, h.spec(rev...))
			if err != nil {
				return fmt.Errorf("reversed batch: %w", err)
			}
			var errs []error
			for i := range n {
				if a, b := batch.arms[i], reversed.arms[n-1-i]; firstDiff(a, b) >= 0 {
					errs = append(errs, fmt.Errorf("replication %d: the reversed batch differs from round %d", i, firstDiff(a, b)+1))
				}
			}
			for _, i := range sample(n, singles) {
				alone, err := h.playAll(c, h.spec(uint64(i)))
				if err != nil {
					return fmt.Errorf("replication %d alone: %w", i, err)
				}
				if j := firstDiff(alone.arms[0], batch.arms[i]); j >= 0 {
					errs = append(errs, fmt.Errorf("replication %d: alone it pulls arm %d in round %d, in the batch arm %d",
						i, at(alone.arms[0], j), j+1, at(batch.arms[i], j)))
				}
				if len(errs) >= 6 {
					break
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		name: "transports-agree",
		explanation: "the transport is transparent: the same session gives the same arms over go-plugin " +
			"(step socket, streamed or unary Step) as in process, so a plugin cannot depend on how it is reached",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			local, err := sdk.NewLocal(h.plugin)
			if err != nil {
				return err
			}
			s := h.spec(indices(0, h.cfg.reps)...)
			got, err := h.playAll(c, s)
			if err != nil {
				return err
			}
			want, err := h.playAll(local, s)
			if err != nil {
				return fmt.Errorf("in process: %w", err)
			}
			return sameArms(h.tr.name+" against in process", got, want)
		},
	},
	{
		name: "diagnostics-passive",
		explanation: "asking for diagnostics changes no decision, and each declared diagnostic comes back " +
			"with one value per replication whenever asked for (the host asks at its checkpoints only)",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			s := h.spec(indices(0, h.cfg.reps)...)
			plain, err := h.playAll(c, s)
			if err != nil {
				return err
			}
			s.diagEvery = 7
			p, err := h.open(c, s)
			if err != nil {
				return err
			}
			nd := len(h.declared.Diagnostics)
			for !p.done() {
				if err := p.step(h.ctx); err != nil {
					return err
				}
				if p.round%s.diagEvery != 0 {
					continue
				}
				if len(p.diags) != nd {
					return fmt.Errorf("round %d: %d diagnostics returned, %d declared (%v)", p.round, len(p.diags), nd, h.declared.Diagnostics)
				}
				for d, vals := range p.diags {
					if len(vals) != len(s.reps) {
						return fmt.Errorf("round %d: diagnostic %q has %d values for %d replications",
							p.round, h.declared.Diagnostics[d], len(vals), len(s.reps))
					}
				}
			}
			if err := p.close(h.ctx); err != nil {
				return err
			}
			return sameArms("with diagnostics asked every 7 rounds", p, plain)
		},
	},
	{
		name: "describe-round-trip",
		explanation: "Describe reports the plugin's name, version, protocol version, diagnostics and every " +
			"declared parameter with the same name, type, doc and default, the default in its type's Go " +
			"representation (float64, int64, bool, string) so it survives the wire unchanged; and a session " +
			"opened with those defaults spelled out gives the same arms as one that leaves them out",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			d, err := c.Describe(h.ctx)
			if err != nil {
				return fmt.Errorf("describe: %w", err)
			}
			p := h.declared
			var errs []error
			bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
			if d.Name != p.Name || d.Version != p.Version {
				bad("describe: name %q version %q, declared %q %q", d.Name, d.Version, p.Name, p.Version)
			}
			if d.ProtocolVersion != sdk.ProtocolVersion {
				bad("describe: protocol version %d, want %d", d.ProtocolVersion, sdk.ProtocolVersion)
			}
			if !slices.Equal(d.Diagnostics, p.Diagnostics) {
				bad("describe: diagnostics %q, declared %q", d.Diagnostics, p.Diagnostics)
			}
			if len(d.Params) != len(p.Params) {
				bad("describe: %d parameters, %d declared", len(d.Params), len(p.Params))
			}
			for i, want := range p.Params {
				if canon, err := want.Type.Coerce(want.Default); err != nil || !reflect.DeepEqual(canon, want.Default) {
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
			if len(errs) > 0 {
				return errors.Join(errs...)
			}
			explicit := map[string]any{}
			for _, dp := range d.Params {
				explicit[dp.Name] = dp.Default
			}
			maps.Copy(explicit, h.cfg.params)
			s := h.spec(indices(0, h.cfg.reps)...)
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
		name:        "edge-two-arms",
		explanation: "the smallest bandit, K = 2, runs to the horizon with valid arms",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			s := h.spec(indices(0, h.cfg.reps)...)
			s.arms = 2
			_, err = h.playAll(c, s)
			return err
		},
	},
	{
		name: "edge-horizon-equals-arms",
		explanation: "a horizon of K rounds, or one shorter than the K*init_pulls forced rounds, consists of " +
			"initial pulls only; the policy must open, observe and close without ever selecting",
		check: func(h *harness) error {
			c, err := h.conn()
			if err != nil {
				return err
			}
			var errs []error
			for _, e := range []struct{ arms, initPulls int }{{h.cfg.arms, 1}, {h.cfg.arms, 2}, {2, 1}, {2, 2}} {
				s := h.spec(indices(0, h.cfg.reps)...)
				s.arms, s.horizon, s.initPulls = e.arms, e.arms, e.initPulls
				if _, err := h.playAll(c, s); err != nil {
					errs = append(errs, fmt.Errorf("K = horizon = %d, init_pulls %d: %w", e.arms, e.initPulls, err))
				}
			}
			return errors.Join(errs...)
		},
	},
}

// singles bounds the replications of the batch-split case replayed alone,
// each in a session of its own: the rule's cost grows with them.
const singles = 8

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
