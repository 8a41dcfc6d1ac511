package run

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// Audit replays, for every policy of file that finished, n of its
// replications, drawn at random (crypto/rand: a plugin cannot know which),
// each alone: a session of that one replication, in a plugin process of
// its own. A replication's results depend only on the seed, its index and
// its own rewards (the contract the conformance kit's batch-split rule
// checks), so each must be bit for bit what the run gave it. One that is
// not fails its policy: its arms depended on the other replications it was
// played with, as a policy that pools what it sees across replications of
// one environment, and so learns faster than the bandit problem allows,
// would. reps are the run's replications, in the order of the results'
// per-replication values. The error, wrapping engine.ErrPolicyFailed,
// names every policy that failed.
func Audit(ctx context.Context, sc *scenario.Scenario, opts engine.Options, file *results.File, reps []uint64, n int) error {
	if n <= 0 || len(reps) == 0 {
		return nil
	}
	var failed []error
	var key [32]byte
	crand.Read(key[:])
	rng := rand.New(rand.NewChaCha8(key))
	for _, p := range file.Policies {
		if p.Status != results.StatusOK {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		idx := rng.Perm(len(reps))[:min(n, len(reps))]
		slices.Sort(idx)
		a := &results.Audit{OK: true}
		for _, i := range idx {
			a.Replications = append(a.Replications, reps[i])
		}
		p.Audit = a
		pol, ok := policyOf(sc, p.Label)
		if !ok {
			continue
		}
		for _, i := range idx {
			why, err := replayAlone(ctx, sc, pol, opts, p, i, reps[i])
			if err != nil && ctx.Err() != nil {
				p.Audit = nil // interrupted: no verdict
				break
			}
			if err != nil {
				why = fmt.Sprintf("replayed alone, it failed: %v", err)
			}
			if why != "" {
				a.OK = false
				p.Status = results.StatusFailed
				p.Error = fmt.Sprintf("audit: replication %d %s: its arms depend on the other replications it was played with (a policy must treat each replication as its own bandit problem, as bench conform's batch-split rule checks)", reps[i], why)
				failed = append(failed, fmt.Errorf("policy %q (plugin %s): %s", p.Label, p.Plugin, p.Error))
				break
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", engine.ErrPolicyFailed, errors.Join(failed...))
}

// replayAlone plays replication rep of policy pol alone and says how its
// final values differ from p's i-th, "" when they are identical.
func replayAlone(ctx context.Context, sc *scenario.Scenario, pol scenario.Policy, opts engine.Options, p *results.Policy, i int, rep uint64) (string, error) {
	one := *sc
	one.Policies = []scenario.Policy{pol}
	f, err := engine.Run(ctx, &one, engine.Options{Launch: opts.Launch, Replications: []uint64{rep}, Batch: 1, Jobs: 1, StepTimeout: opts.StepTimeout})
	if err != nil {
		return "", err
	}
	q := f.Policies[0]
	if q.Status != results.StatusOK {
		return "", fmt.Errorf("%s", q.Error)
	}
	for _, m := range metric.Names {
		was, alone := p.Final[m], q.Final[m]
		if i >= len(was) || len(alone) != 1 {
			return fmt.Sprintf("has no final %s to compare", m), nil
		}
		if math.Float64bits(was[i]) != math.Float64bits(alone[0]) {
			return fmt.Sprintf("gives final %s %.6g alone but %.6g in the run", m, alone[0], was[i]), nil
		}
	}
	return "", nil
}

// policyOf returns the scenario's policy labelled label.
func policyOf(sc *scenario.Scenario, label string) (scenario.Policy, bool) {
	for _, p := range sc.Policies {
		if p.Label == label {
			return p, true
		}
	}
	return scenario.Policy{}, false
}

// DefaultAudit is how many replications of each policy a run audits when
// --audit is not given but the run is sealed (--seed random) or its
// sandbox leaves a channel between policies open (SetAuditDefault).
// Three: each costs one plugin start and one replication's rounds per
// policy (0.3% of a run of 1,000 replications), while a policy that pools
// what it observes, across the replications of its batch or with another
// policy over an open channel, changes the arms of most replications, and
// an audit of 3 misses a cheat that changes a fraction f of them with
// probability (1-f)^3: 1/8 at f = 1/2, 1/1000 at f = 0.9 (the cheats of
// docs/threat-model.md change nearly all). --audit N audits more.
const DefaultAudit = 3

// SetAuditDefault turns the audit on, DefaultAudit replications per
// policy, when --audit was not given (given false) and the run is sealed,
// its scenario is contextual, or open lists channels between policies that
// the sandbox (at level) leaves open, and records why (AuditDefault, for
// the results). A contextual scenario is audited whatever its seed and
// sandbox: its replications play the same rows (or contexts from one
// distribution), so a batch policy that pools what one replication learnt
// about a row into the others beats chance on any dataset, private and
// sealed included (docs/threat-model.md, Contextual scenarios), and only
// replaying a replication alone shows it. It says
// so on stderr in one line; and, when --audit 0 turned off an audit that
// would have been on, or the run cannot be audited (--sequential,
// --replication), that the run is unaudited.
func (o *Options) SetAuditDefault(given, contextual bool, level string, open []string, stderr io.Writer) {
	var why []string
	if o.Overrides.Seed != nil && o.Overrides.Seed.Random {
		why = append(why, fmt.Sprintf("a sealed run (%s random)", o.name(OptSeed)))
	}
	if contextual {
		why = append(why, "a contextual scenario (its replications see the same rows, so pooling them across a batch pays)")
	}
	if len(open) > 0 {
		why = append(why, fmt.Sprintf("the sandbox (%s) leaves channels between policies open: %s", level, strings.Join(open, "; ")))
	}
	if len(why) == 0 {
		return
	}
	reason := strings.Join(why, "; ")
	switch {
	case given && o.Audit == 0:
		fmt.Fprintf(stderr, "bench: warning: %s 0: this run is unaudited (without it, it would be: %s)\n", o.name(OptAudit), reason)
	case given:
	case o.Sequential || o.Replication != nil:
		flag := o.name(OptSequential)
		if o.Replication != nil {
			flag = o.name(OptReplication)
		}
		fmt.Fprintf(stderr, "bench: warning: %s; a run with %s cannot be audited: this run is unaudited\n", reason, flag)
	default:
		o.Audit, o.AuditDefault = DefaultAudit, reason
		fmt.Fprintf(stderr, "bench: %s: auditing %d replications of each policy (%[4]s %[2]d by default; %[4]s 0 turns it off)\n", reason, DefaultAudit, DefaultAudit, o.name(OptAudit))
	}
}

// recordAuditDefault records in file why the audit was on by default.
func recordAuditDefault(file *results.File, why string) {
	if why == "" {
		return
	}
	for _, p := range file.Policies {
		if p.Audit != nil {
			p.Audit.Default = why
		}
	}
}
