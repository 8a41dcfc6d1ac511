package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/params"
)

// Resume reads the results file at path, of an earlier run of sc, and
// returns it with only the policies that are provably what this run would
// compute; nil when there is no such file. A kept policy ran to
// completion with the same label, plugin, plugin build (SHA-256, or
// version when the SHA-256 is unknown), resolved parameters, feedback and
// checkpoints (results.SamePolicy), under the same noise_known, reward
// streams and bench build; every other policy of sc is rerun, and stderr
// says why. The plugins are started with launch and described, to
// resolve their parameters' defaults. A file of another experiment
// (scenario, family, means, noise, horizon, runs, seed, init_pulls or
// shard spec) is refused, as is one holding a policy sc does not run
// from another setting. name names the options in the notes on stderr
// (Options.Name).
func Resume(ctx context.Context, path string, sc *scenario.Scenario, spec shard.Spec, launch engine.Launcher, stderr io.Writer, name func(Option) string) (*results.File, error) {
	if path == "" {
		return nil, &OptionError{Option: OptResume, Err: errors.New("{Resume} needs {Out} FILE")}
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, nil
	}
	f, err := results.ReadFile(path)
	if err != nil {
		return nil, optErr(OptResume, "", "%w", err)
	}
	s := f.Scenario
	// Another experiment, or another run of it, is refused; noise_known,
	// the reward streams and the checkpoints decide below what is rerun.
	if d := results.Only(s.Diff(engine.Record(sc)), "name", "family", "arms", "means", "noise_sd", "horizon", "runs", "seed", "init_pulls", "changes", "drift", "random_changes", "context"); len(d) > 0 ||
		f.Shard.Count != max(spec.Count, 1) || f.Shard.Index != spec.Index {
		why := fmt.Sprintf("shard %d/%d, this run %d/%d", f.Shard.Index, f.Shard.Count, spec.Index, max(spec.Count, 1))
		if len(d) > 0 {
			var parts []string
			for _, x := range d {
				parts = append(parts, fmt.Sprintf("%s %s, this run %s", x.Field, x.A, x.B))
			}
			why = strings.Join(parts, "; ")
		}
		return nil, optErr(OptResume, "", "%s holds another run (%s); remove it or choose another {Out}", path, why)
	}

	// What every policy of the file shares: a difference reruns them all.
	var shared []string
	known := sc.Environment.IsNoiseKnown()
	switch {
	case s.NoiseKnown == nil:
		shared = append(shared, "the file does not record noise_known")
	case *s.NoiseKnown != known:
		shared = append(shared, fmt.Sprintf("noise_known was %v, now %v", *s.NoiseKnown, known))
	}
	streams := env.StreamsVersion
	if sc.Contextual() {
		streams = env.ContextStreamsVersion
	}
	if s.Streams != streams {
		shared = append(shared, fmt.Sprintf("its reward streams are %q, now %q", s.Streams, streams))
	}
	if v := results.HostVersion(); f.Bench == nil || f.Bench.Version != v {
		was := "unrecorded"
		if f.Bench != nil {
			was = fmt.Sprintf("%q", f.Bench.Version)
		}
		shared = append(shared, fmt.Sprintf("bench.version was %s, now %q (reward streams belong to a build)", was, v))
	}

	c := &checker{sc: sc, launch: launch, plugins: map[string]*engine.Plugin{}, launchErr: map[string]error{}}
	defer c.close()
	inScenario := map[string]scenario.Policy{}
	for _, pol := range sc.Policies {
		inScenario[pol.Label] = pol
	}
	var ok []*results.Policy
	kept := map[string]bool{}
	for _, p := range f.Policies {
		if p.Status != results.StatusOK || kept[p.Label] {
			continue // failed or interrupted: rerun
		}
		pol, selected := inScenario[p.Label]
		why := strings.Join(shared, "; ")
		switch {
		case !selected:
			// Not run now (--policy, or gone from the scenario): kept as
			// it is, if it still fits beside the policies run now.
			if why == "" && !slices.Equal(p.Checkpoints, sc.Checkpoints) {
				why = fmt.Sprintf("checkpoints were %v, now %v", p.Checkpoints, sc.Checkpoints)
			}
			if why != "" {
				return nil, optErr(OptResume, "", "%s holds policy %q, which this run does not run, from another setting (%s); resume without {Policies}, or remove the file", path, p.Label, why)
			}
		case why == "":
			why = c.differs(ctx, p, pol)
		}
		if selected && why != "" {
			fmt.Fprintf(stderr, "bench: %s: rerunning %q: %s\n", nameBy(name)(OptResume), p.Label, why)
			continue
		}
		ok = append(ok, p)
		kept[p.Label] = true
	}
	f.Policies = ok
	f.Complete = true
	return f, nil
}

// checker tells whether a recorded policy is what a scenario's policy
// would compute now, launching each plugin (of one pinned build) once.
type checker struct {
	sc        *scenario.Scenario
	launch    engine.Launcher
	plugins   map[string]*engine.Plugin // by plugin@sha256
	launchErr map[string]error
}

func (c *checker) close() {
	for _, p := range c.plugins {
		p.Conn.Close()
	}
}

// differs says why p, as recorded, is not what pol would compute now;
// "" when it provably is.
func (c *checker) differs(ctx context.Context, p *results.Policy, pol scenario.Policy) string {
	sc := c.sc
	if p.Plugin != pol.Plugin {
		return fmt.Sprintf("plugin was %s, now %s", p.Plugin, pol.Plugin)
	}
	if !slices.Equal(p.Checkpoints, sc.Checkpoints) {
		return fmt.Sprintf("checkpoints were %v, now %v", p.Checkpoints, sc.Checkpoints)
	}
	key := pol.Plugin + "@" + pol.SHA256
	if _, ok := c.plugins[key]; !ok && c.launchErr[key] == nil {
		if pl, err := c.launch(ctx, pol); err != nil {
			c.launchErr[key] = err
		} else {
			c.plugins[key] = pl
		}
	}
	if err := c.launchErr[key]; err != nil {
		return fmt.Sprintf("plugin %s cannot be checked: %v", pol.Plugin, err)
	}
	pl := c.plugins[key]
	resolved, resolveErr := params.Resolve(pl.Desc.Params, pol.Params)
	now := &results.Policy{Label: p.Label, Plugin: pol.Plugin, PluginSHA256: pl.SHA256, PluginVersion: pl.Desc.Version,
		Feedback: feedbackOf(sc, pol), Params: resolved}
	if pl.SHA256 == "" {
		now.PluginSHA256 = p.PluginSHA256 // unknown: the version decides
	}
	if resolveErr != nil {
		now.Params = p.Params // the plugin's build first: its parameters are what it declares
	}
	switch results.SamePolicy(p, now) {
	case "plugin_sha256":
		was := p.PluginSHA256
		if was == "" {
			was = "unrecorded"
		}
		return fmt.Sprintf("plugin %s SHA-256 was %s, now %s", pol.Plugin, was, pl.SHA256)
	case "plugin_version":
		return fmt.Sprintf("plugin %s version was %q, now %q", pol.Plugin, p.PluginVersion, pl.Desc.Version)
	case "feedback":
		return fmt.Sprintf("feedback was %s, now %s", orImmediate(p.Feedback), orImmediate(now.Feedback))
	case "params":
		return fmt.Sprintf("params were %s, now %s", results.FormatParams(p.Params), results.FormatParams(resolved))
	}
	if resolveErr != nil {
		return fmt.Sprintf("params: %v", resolveErr)
	}
	return ""
}

// feedbackOf is a policy's feedback as results files record it: empty for
// immediate feedback.
func feedbackOf(sc *scenario.Scenario, pol scenario.Policy) string {
	if fb := sc.FeedbackOf(pol); fb.Delayed() {
		return fb.String()
	}
	return ""
}

// orImmediate names a recorded feedback mode, "immediate" when empty.
func orImmediate(f string) string {
	if f == "" {
		return "immediate"
	}
	return f
}
