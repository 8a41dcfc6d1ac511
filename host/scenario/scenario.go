// Package scenario loads, defaults and validates regretbench scenario files
// (design §8): the environment the host simulates, the horizon, the
// number of replications, the seed and the policies to compare.
//
// Files are YAML read with yaml.v3 alone: an unknown or duplicate key is an
// error, typing is strict (no string to int or bool to int conversions, no
// 2.5 truncated to an int) and keys are case-sensitive, parameter names
// included: every key, and every parameter name, is lower_snake_case. The format is documented in package
// github.com/regretbench/regretbench/scenarios, which ships and embeds the
// paper's scenarios.
//
// Every error names the scenario source and the field at fault, e.g.
//
//	scenario two_arm.yaml: unknown key "environment.noisesd" (valid keys: family, means, noise_sd, noise_known, scale) (line 5)
//	scenario x.yaml: horizon: expected int, got string "20000" (line 3)
//	scenario x.yaml: policies[2].label: duplicate label "TS" (also policies[0]) (line 12)
package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/scenarios"
	"github.com/regretbench/regretbench/sdk"
)

// Scenario is one benchmark: an environment, a horizon, a number of
// replications, a seed and the policies to compare on it.
type Scenario struct {
	// Name identifies the scenario in reports; it defaults to the file
	// name without its extension.
	Name string `yaml:"name"`
	// Description is a one-line summary.
	Description string `yaml:"description,omitempty"`
	// Environment holds what the host simulates: family, means and noise.
	// A contextual scenario has Context instead, and no Environment.
	Environment Environment `yaml:"environment,omitempty"`
	// Context, in a contextual scenario, is its `context:` block: a
	// dataset or a synthetic model (docs/contextual.md); nil otherwise.
	Context *Context `yaml:"context,omitempty" json:",omitempty"`
	// Horizon is the number of rounds T of each replication.
	Horizon int `yaml:"horizon"`
	// Runs is the number of independent replications.
	Runs int `yaml:"runs"`
	// Seed fixes every reward stream and every policy's randomness: an
	// integer (`seed: 42`), or a secret written as the string "0x" + 64 hex
	// digits (design §4, sealed runs). 0 when absent from the file.
	Seed seed.Seed `yaml:"seed"`
	// InitPulls is the number of host-forced pulls of each arm, in arm
	// order, before any policy rule runs; 1 when absent from the file.
	InitPulls int `yaml:"init_pulls"`
	// Checkpoints are the rounds at which metrics are recorded, strictly
	// increasing and ending at Horizon; when absent from the file,
	// DefaultCheckpoints(Horizon) and, in a piecewise-stationary
	// environment, each breakpoint and the round after it
	// (BreakpointCheckpoints).
	Checkpoints []int `yaml:"checkpoints,flow"`
	// Feedback, when set, delays or batches the rewards (Feedback); absent,
	// feedback is immediate.
	Feedback *Feedback `yaml:"feedback,omitempty,flow"`
	// Policies are the policies to run, in report order.
	Policies []Policy `yaml:"policies"`
	// Source is where the scenario came from (a file path or
	// "embedded:NAME"); every error message starts with it.
	Source string `yaml:"-"`

	// defaultCheckpoints records that Checkpoints were not given in the
	// file, so SetHorizon recomputes them instead of trimming them.
	defaultCheckpoints bool
	// environmentGiven records that a contextual scenario's file has an
	// `environment:` key too, which Validate refuses.
	environmentGiven bool
}

// Environment describes the arms the host simulates. Plugins never see
// Means or Scale (design §3).
type Environment struct {
	// Family is the reward family, "gaussian" (the default) or "bernoulli".
	Family string `yaml:"family"`
	// Means are the arm means as written in the file; TrueMeans applies
	// Scale.
	Means []float64 `yaml:"means,flow"`
	// NoiseSD is the reward standard deviation of every gaussian arm,
	// required and > 0 for gaussian, absent for bernoulli.
	NoiseSD float64 `yaml:"noise_sd,omitempty"`
	// NoiseKnown says whether NoiseSD is sent to the plugins; nil in the
	// file means true. After Parse it is never nil; use IsNoiseKnown.
	NoiseKnown *bool `yaml:"noise_known,omitempty"`
	// Scale, when non-zero, multiplies every mean: the true means are
	// Means[i] * Scale (e.g. OBD's CTR * sqrt(1000) / 0.057774753125).
	Scale float64 `yaml:"scale,omitempty"`
	// Changes make the environment piecewise-stationary: from round At
	// of each on, the means are its Means (design §8).
	Changes []Change `yaml:"changes,omitempty" json:",omitempty"`
	// Drift makes the means move linearly from one point to the next:
	// from Means at round 1 to each point's Means at its round At, constant
	// after the last point.
	Drift []Change `yaml:"drift,omitempty" json:",omitempty"`
	// RandomChanges redraws the means at random breakpoints, in each
	// replication on its own.
	RandomChanges *RandomChanges `yaml:"random_changes,omitempty" json:",omitempty"`
}

// Policy is one policy of a scenario: a plugin and its parameters.
type Policy struct {
	// Plugin names the executable bench-plugin-PLUGIN in the plugin
	// directory; it matches [a-z0-9_-]+.
	Plugin string `yaml:"plugin"`
	// Label names the policy in reports and in --policy; it defaults to
	// Plugin and is unique within the scenario.
	Label string `yaml:"label"`
	// Params are the plugin's parameters by lower_snake_case name: int64,
	// float64, bool or string values. The host checks them against the
	// plugin's Describe before a run.
	Params map[string]any `yaml:"params,omitempty,flow"`
	// SHA256, when set, pins the plugin binary: 64 hex digits, lower-cased
	// by Parse.
	SHA256 string `yaml:"sha256,omitempty"`
	// Feedback, when set, replaces the scenario's `feedback:` for this
	// policy (Scenario.FeedbackOf).
	Feedback *Feedback `yaml:"feedback,omitempty,flow"`
	// Color, when set, is the policy's colour in figures: "#RRGGBB"
	// (host/plot draws the others in its palette, by order of appearance).
	Color string `yaml:"color,omitempty"`
}

// Error is one problem with a scenario. Parse and Validate return several
// of them joined with errors.Join; use errors.As to inspect the first.
type Error struct {
	Source string // the scenario's Source
	Field  string // the key path at fault, e.g. "policies[2].label"; "" for the whole file
	Line   int    // the line in the YAML source, 0 when unknown
	Msg    string // what is wrong
}

// Error formats the problem as "scenario SOURCE: FIELD: MSG (line N)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("scenario ")
	b.WriteString(e.Source)
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	return b.String()
}

// Parse reads a scenario from YAML data, fills in defaults and validates
// it. source names the data in error messages (a path or "embedded:NAME").
func Parse(source string, data []byte) (*Scenario, error) {
	root, err := parseYAML(source, data)
	if err != nil {
		return nil, err
	}
	var s Scenario
	d := &decoder{source: source, set: map[string]bool{}}
	d.fields("", root, reflect.ValueOf(&s).Elem())
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	s.Source = source

	var missing []error
	required := []struct{ key, what string }{
		{"environment", "the arms: family, means, noise_sd (or, for a contextual scenario, context)"},
		{"environment.means", "the arm means, at least two"},
		{"horizon", "the number of rounds T"},
		{"runs", "the number of replications"},
		{"policies", "at least one {plugin: NAME, label: LABEL}"},
	}
	if d.set["context"] {
		// A contextual scenario: the context replaces the environment,
		// whose presence Validate refuses.
		required = required[2:]
		s.environmentGiven = d.set["environment"]
		if s.Context == nil {
			s.Context = &Context{}
		}
		s.Context.costNull = nullCost(d.set, s.Context.Cost)
	} else {
		required = append(required, s.requiredChangeKeys()...)
	}
	for _, key := range required {
		if !d.set[key.key] {
			if i := strings.LastIndexByte(key.key, '.'); i > 0 && !d.set[key.key[:i]] {
				continue // reported for the parent
			}
			missing = append(missing, &Error{Source: source, Field: key.key, Msg: "required (" + key.what + ")"})
		}
	}
	if d.set["environment.scale"] && s.Environment.Scale == 0 {
		missing = append(missing, &Error{Source: source, Field: "environment.scale", Msg: "must be > 0 (omit it for no scaling)",
			Line: lineOf(root, "environment.scale")})
	}
	if len(missing) > 0 {
		return nil, errors.Join(missing...)
	}
	s.applyDefaults(d.set["init_pulls"], d.set["checkpoints"])
	if err := s.Validate(); err != nil {
		return nil, addLines(root, err)
	}
	return &s, nil
}

// nullCost returns the path of the first entry of a cost matrix written
// as null ("context.cost[1][0]"), which decoding leaves as 0; "" if none.
func nullCost(set map[string]bool, cost [][]float64) string {
	for y, row := range cost {
		for a := range row {
			if p := fmt.Sprintf("context.cost[%d][%d]", y, a); !set[p] {
				return p
			}
		}
	}
	return ""
}

// applyDefaults fills in every default of an optional field.
func (s *Scenario) applyDefaults(initPullsSet, checkpointsSet bool) {
	if s.Name == "" {
		base := s.Source
		base = strings.TrimPrefix(base, "embedded:")
		base = filepath.Base(base)
		s.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	if s.Context != nil {
		// No environment, and no forced rounds unless the file asks
		// (which Validate refuses).
		s.Context.resolve(s.Source)
	} else {
		e := &s.Environment
		if e.Family == "" {
			e.Family = string(sdk.Gaussian)
		}
		if e.NoiseKnown == nil {
			known := true
			e.NoiseKnown = &known
		}
		if !initPullsSet {
			s.InitPulls = 1
		}
	}
	for i := range s.Policies {
		p := &s.Policies[i]
		if p.Label == "" {
			p.Label = p.Plugin
		}
		p.SHA256 = strings.ToLower(p.SHA256)
		for k, v := range p.Params {
			if i, ok := v.(int); ok {
				p.Params[k] = int64(i) // the SDK's integer type (sdk.Params)
			}
		}
	}
	if !checkpointsSet || len(s.Checkpoints) == 0 {
		s.defaultCheckpoints = true
		s.Checkpoints = s.defaultCheckpointsOf(s.Horizon)
	} else if n := len(s.Checkpoints); s.Horizon >= 1 && s.Checkpoints[n-1] < s.Horizon {
		s.Checkpoints = append(s.Checkpoints, s.Horizon)
	}
}

// Load reads and parses the scenario file at path. It refuses at once a
// path that is not a regular file (a FIFO, a device) and a file larger
// than MaxFileSize.
func Load(path string) (*Scenario, error) {
	data, err := safeio.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return Parse(path, data)
}

// Named parses the shipped scenario name (the file name without .yaml)
// from the copy embedded in the binary. An unknown name is an error listing
// the shipped names.
func Named(name string) (*Scenario, error) {
	base := strings.TrimSuffix(name, ".yaml")
	if base != "" && !strings.ContainsAny(base, `/\`) {
		if data, err := fs.ReadFile(scenarios.FS, base+".yaml"); err == nil {
			return Parse("embedded:"+base, data)
		}
	}
	return nil, fmt.Errorf("unknown scenario %q; shipped scenarios: %s (or give the path of a .yaml file)",
		name, strings.Join(Shipped(), ", "))
}

// Resolve loads nameOrPath as a file when it contains a path separator,
// ends in .yaml or .yml, or names an existing file; otherwise it is the
// name of a shipped scenario (Named).
func Resolve(nameOrPath string) (*Scenario, error) {
	ext := strings.ToLower(filepath.Ext(nameOrPath))
	if strings.ContainsRune(nameOrPath, '/') || strings.ContainsRune(nameOrPath, os.PathSeparator) ||
		ext == ".yaml" || ext == ".yml" {
		return Load(nameOrPath)
	}
	if fi, err := os.Stat(nameOrPath); err == nil && fi.Mode().IsRegular() {
		return Load(nameOrPath)
	}
	return Named(nameOrPath)
}

// Shipped returns the names of the shipped scenarios, sorted.
func Shipped() []string {
	files, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil {
		panic(err) // the pattern is valid
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(path.Base(f), ".yaml")
	}
	slices.Sort(names)
	return names
}

// K returns the number of arms: of the environment, or of the context.
func (s *Scenario) K() int {
	if s.Context != nil {
		return s.Context.K()
	}
	return len(s.Environment.Means)
}

// TrueMeans returns the arm means the host simulates: Means, multiplied by
// Scale when Scale is set. The result is a fresh slice.
func (s *Scenario) TrueMeans() []float64 {
	out := slices.Clone(s.Environment.Means)
	if sc := s.Environment.Scale; sc != 0 {
		for i := range out {
			out[i] *= sc
		}
	}
	return out
}

// Family returns the reward family as the SDK's type (Context.Family in a
// contextual scenario).
func (s *Scenario) Family() sdk.Family {
	if s.Context != nil {
		return s.Context.Family()
	}
	return sdk.Family(s.Environment.Family)
}

// IsNoiseKnown reports whether the noise sd is declared known to the
// learner (true unless the file says noise_known: false).
func (e Environment) IsNoiseKnown() bool { return e.NoiseKnown == nil || *e.NoiseKnown }

// Select keeps only the policies whose labels are listed, in scenario
// order. An empty list keeps every policy. An unknown label is an error
// listing the scenario's labels, and leaves s unchanged.
func (s *Scenario) Select(labels []string) error {
	if len(labels) == 0 {
		return nil
	}
	have := make([]string, len(s.Policies))
	for i, p := range s.Policies {
		have[i] = fmt.Sprintf("%q", p.Label)
	}
	want := make(map[string]bool, len(labels))
	for _, l := range labels {
		if !slices.ContainsFunc(s.Policies, func(p Policy) bool { return p.Label == l }) {
			return &Error{Source: s.Source, Msg: fmt.Sprintf("no policy labelled %q (labels: %s)", l, strings.Join(have, ", "))}
		}
		want[l] = true
	}
	s.Policies = slices.DeleteFunc(s.Policies, func(p Policy) bool { return !want[p.Label] })
	return nil
}

// SetHorizon overrides the horizon (e.g. from --horizon) and adapts the
// checkpoints: defaulted ones are recomputed; explicit ones beyond T are
// dropped and T is appended. Changes after T are dropped, and drift
// points after T are replaced by the point at T on the way to the next one
// (trimChanges). It then validates the scenario.
func (s *Scenario) SetHorizon(T int) error {
	s.Horizon = T
	s.trimChanges(T)
	if s.defaultCheckpoints || len(s.Checkpoints) == 0 {
		s.Checkpoints = s.defaultCheckpointsOf(T)
	} else {
		cp := slices.DeleteFunc(slices.Clone(s.Checkpoints), func(c int) bool { return c >= T })
		if T >= 1 {
			cp = append(cp, T)
		}
		s.Checkpoints = cp
	}
	return s.Validate()
}
