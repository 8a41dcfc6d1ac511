package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// seqPolicy accumulates one policy's per-replication traces over the
// groups of a sequential run.
type seqPolicy struct {
	meta    *results.Policy // the first group's record: label, plugin, params...
	metrics map[string][][]float64
	diags   map[string]results.DiagTrace
	reps    int
	failed  *results.Policy // set when a group failed
	seconds float64
	probs   *results.Probs // a contextual policy's, over the groups
}

// seqNames are the metrics whose traces p carries: metric.Names, and
// metric.PVLoss in a contextual run.
func seqNames(p *results.Policy) []string {
	names := metric.Names[:]
	if p.PVLoss != nil {
		names = append(names[:len(names):len(names)], metric.PVLoss)
	}
	return names
}

func (s *seqPolicy) add(p *results.Policy) {
	s.seconds += p.Seconds
	s.probs = results.MergeProbs(s.probs, p.Probs)
	if p.Status != results.StatusOK {
		s.failed = p
		return
	}
	if s.meta == nil {
		s.meta = p
		s.metrics = map[string][][]float64{}
		for _, name := range seqNames(p) {
			s.metrics[name] = make([][]float64, len(p.Checkpoints))
		}
		for name, d := range p.Diagnostics {
			if s.diags == nil {
				s.diags = map[string]results.DiagTrace{}
			}
			s.diags[name] = results.DiagTrace{Checkpoints: d.Checkpoints, Rows: make([][]float64, len(d.Checkpoints))}
		}
	}
	for _, name := range seqNames(p) {
		for c, row := range p.Traces.Metrics[name] {
			s.metrics[name][c] = append(s.metrics[name][c], row...)
		}
	}
	for name, d := range s.diags {
		for c, row := range p.Traces.Diagnostics[name] {
			d.Rows[c] = append(d.Rows[c], row...)
		}
	}
	s.reps += len(p.Final[metric.Regret])
}

// policy is the record of the replications run so far.
func (s *seqPolicy) policy(runs int) *results.Policy {
	if s.failed != nil {
		p := *s.failed
		p.Traces, p.Seconds = nil, s.seconds
		return &p
	}
	p := &results.Policy{Label: s.meta.Label, Plugin: s.meta.Plugin, PluginVersion: s.meta.PluginVersion, PluginSHA256: s.meta.PluginSHA256,
		Sandbox: s.meta.Sandbox, Limits: s.meta.Limits, Params: s.meta.Params, Feedback: s.meta.Feedback, Status: results.StatusOK, Seconds: s.seconds}
	if s.meta.SandboxSeen() {
		p.SetSandbox(s.meta.Sandbox)
	}
	p.Summarize(s.meta.Checkpoints, s.metrics, s.diags, false)
	p.Probs = s.probs
	if s.reps < runs {
		p.Replications = s.reps
	}
	return p
}

// Sequential plays the scenario's replications in opt.Looks cumulative
// groups (bench run --sequential), each gated against base after it
// runs; a policy whose verdict is known (or that failed) runs no further
// group, and stderr gets a line per look. The file it returns records, per
// policy, the replications used (results.Policy.Replications, absent for
// a policy that ran them all); the caller gates it as usual, and the gate
// replays the same looks (gate.SequentialTest), reaching the same
// verdicts.
func Sequential(ctx context.Context, sc *scenario.Scenario, opts engine.Options, base *results.File, opt gate.Options, stderr io.Writer) (*results.File, error) {
	sizes, err := gate.LookSizes(sc.Runs, opt.Looks)
	if err != nil {
		return nil, optErr(OptLooks, "", "%w", err)
	}
	all := sc.Policies
	defer func() { sc.Policies = all }()
	acc := map[string]*seqPolicy{}
	pending := Labels(sc)
	var file *results.File
	var runErr error
	prev := 0
	view := func(last *results.File) *results.File {
		f := *last
		f.Shard = results.Shard{Index: 0, Count: 1}
		f.Policies = nil
		for _, pol := range all {
			if s := acc[pol.Label]; s != nil {
				f.Policies = append(f.Policies, s.policy(sc.Runs))
			}
		}
		f.FillDistributions()
		return &f
	}
	for k, n := range sizes {
		sc.Policies = slices.DeleteFunc(slices.Clone(all), func(p scenario.Policy) bool { return !slices.Contains(pending, p.Label) })
		opts.Replications = nil
		for r := prev; r < n; r++ {
			opts.Replications = append(opts.Replications, uint64(r))
		}
		opts.Traces = true
		part, err := engine.Run(ctx, sc, opts)
		if part == nil {
			return nil, err
		}
		for _, p := range part.Policies {
			if acc[p.Label] == nil {
				acc[p.Label] = &seqPolicy{}
			}
			acc[p.Label].add(p)
		}
		file = view(part)
		if err != nil && !errors.Is(err, engine.ErrPolicyFailed) {
			return file, err // interrupted: the replications so far, marked incomplete by the engine
		}
		runErr = errors.Join(runErr, err)
		rep, gerr := gate.Compare(base, file, opt)
		if gerr != nil {
			return file, runErr // the gate after the run says what is wrong
		}
		var decided []string
		pending = pending[:0]
		for _, row := range rep.Rows {
			if row.Verdict == gate.Pending {
				pending = append(pending, row.Label)
			} else if row.Look == k+1 {
				decided = append(decided, fmt.Sprintf("%s %s", row.Label, row.Verdict))
			}
		}
		what := "nothing decided"
		if len(decided) > 0 {
			what = strings.Join(decided, ", ")
		}
		fmt.Fprintf(stderr, "bench: sequential gate: look %d of %d, %d replications: %s; %d pending\n", k+1, len(sizes), n, what, len(pending))
		if len(pending) == 0 {
			break
		}
		prev = n
	}
	return file, runErr
}
