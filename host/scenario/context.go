package scenario

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/sdk"
)

// The synthetic models of a contextual scenario (Context.Model).
const (
	// LinearGaussian: reward <theta_a, x> + N(0, noise_sd^2), or
	// <theta, x_a> + noise with per-arm features.
	LinearGaussian = "linear_gaussian"
	// LogisticBernoulli: reward 1 with probability sigmoid(<theta_a, x>),
	// or sigmoid(<theta, x_a>) with per-arm features.
	LogisticBernoulli = "logistic_bernoulli"
)

// Limits on a contextual scenario's shape.
const (
	MaxContextArms = 1000
	MaxContextDim  = 4096
	// MaxContextWidth bounds arms x dim: the values of one replication's
	// parameter (and, with per-arm features, of its context).
	MaxContextWidth = 1 << 20
)

// Context is a contextual scenario's `context:` block (docs/contextual.md):
// a supervised dataset turned into a bandit (Dataset, a shipped one, or
// DatasetFile, a private CSV file), or a synthetic model (Model, with
// Arms, Dim, PerArm and, for linear_gaussian, NoiseSD). It replaces
// `environment:`.
type Context struct {
	// Dataset names a shipped dataset (host/dataset: `bench datasets`).
	Dataset string `yaml:"dataset,omitempty"`
	// DatasetFile is a private dataset: a CSV file (dataset.ReadFile),
	// relative to the scenario file's directory unless absolute.
	DatasetFile string `yaml:"dataset_file,omitempty"`
	// Model is a synthetic model: linear_gaussian or logistic_bernoulli.
	Model string `yaml:"model,omitempty"`
	// Arms and Dim are a model's number of arms K and context dimension
	// d; a dataset sets them (its classes and features).
	Arms int `yaml:"arms,omitempty"`
	Dim  int `yaml:"dim,omitempty"`
	// PerArm gives a model one feature vector per arm and one parameter
	// shared by the arms (action-dependent features).
	PerArm bool `yaml:"per_arm,omitempty"`
	// NoiseSD is linear_gaussian's reward noise sd, > 0; it is sent to the
	// plugins (known to the learner).
	NoiseSD float64 `yaml:"noise_sd,omitempty"`
	// Cost is a dataset's cost matrix, nil for the 0/1 reward: K rows of
	// K values in [0, 1], Cost[y][a] the cost of pulling arm a on a row of
	// class y, the classes in the dataset's order (dataset.Dataset.Classes).
	// The reward is 1 - Cost[y][a] and a round's regret Cost[y][a] minus
	// the row's smallest cost (docs/contextual.md).
	Cost [][]float64 `yaml:"cost,omitempty,flow" json:",omitempty"`

	// What resolve found: the dataset file's path, and the counts.
	resolved             bool
	path, sha256, errMsg string
	errField             string
	rows, arms, dim      int
	classes              []string // a private file's class names
	costNull             string   // the first cost entry written as null
}

// Contextual reports whether s is a contextual scenario (a `context:`
// block in place of `environment:`).
func (s *Scenario) Contextual() bool { return s.Context != nil }

// Path is the resolved path of a private dataset file, "" otherwise.
func (c *Context) Path() string { return c.path }

// FileSHA256 is the hex SHA-256 of the private dataset file as Parse read
// it, "" otherwise.
func (c *Context) FileSHA256() string { return c.sha256 }

// Rows is the number of rows of the context's dataset, 0 for a model.
func (c *Context) Rows() int { return c.rows }

// K is the number of arms: a model's Arms, or the dataset's classes.
func (c *Context) K() int { return c.arms }

// D is the context dimension: a model's Dim, or the dataset's features.
func (c *Context) D() int { return c.dim }

// Width is the number of values of one replication's context in a round:
// D, or K x D with per-arm features.
func (c *Context) Width() int {
	if c.PerArm {
		return c.arms * c.dim
	}
	return c.dim
}

// Family is the reward family the plugins are told: bernoulli for a
// dataset (reward 1 for the right class, else 0; with a cost matrix,
// 1 - cost, in [0, 1]) and for logistic_bernoulli, gaussian for
// linear_gaussian.
func (c *Context) Family() sdk.Family {
	if c.Model == LinearGaussian {
		return sdk.Gaussian
	}
	return sdk.Bernoulli
}

// IsDataset reports whether the context is a dataset (shipped or private).
func (c *Context) IsDataset() bool { return c.Dataset != "" || c.DatasetFile != "" }

// resolve finds the counts of the context's dataset or model: a shipped
// dataset's from its Info, without loading it; a private file's by
// reading it, relative to the directory of source. A problem is kept for
// checkContext to report.
func (c *Context) resolve(source string) {
	if c.resolved {
		return
	}
	c.resolved = true
	fail := func(field, format string, args ...any) {
		c.errField, c.errMsg = field, fmt.Sprintf(format, args...)
	}
	given := 0
	for _, g := range []bool{c.Dataset != "", c.DatasetFile != "", c.Model != ""} {
		if g {
			given++
		}
	}
	switch {
	case given == 0:
		fail("context", "give one of dataset (a shipped dataset: %s), dataset_file (a private CSV file) or model (%s or %s)",
			strings.Join(dataset.Names(), ", "), LinearGaussian, LogisticBernoulli)
		return
	case given > 1:
		fail("context", "give one of dataset, dataset_file and model, not several")
		return
	}
	if c.Model != "" {
		c.arms, c.dim = c.Arms, c.Dim
		return
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"arms", c.Arms != 0}, {"dim", c.Dim != 0}, {"per_arm", c.PerArm}, {"noise_sd", c.NoiseSD != 0}} {
		if f.set {
			fail("context."+f.name, "only for a model: a dataset sets its arms (its classes) and its features, and has no noise")
			return
		}
	}
	if c.Dataset != "" {
		in, ok := dataset.Lookup(c.Dataset)
		if !ok {
			fail("context.dataset", "no shipped dataset %q (shipped: %s)", c.Dataset, strings.Join(dataset.Names(), ", "))
			return
		}
		c.rows, c.arms, c.dim = in.Rows, in.Classes, in.Features
		return
	}
	if strings.HasPrefix(source, "embedded:") {
		fail("context.dataset_file", "a shipped scenario cannot name a private dataset file")
		return
	}
	p := c.DatasetFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(source), p)
	}
	d, err := dataset.ReadFile(p)
	if err != nil {
		fail("context.dataset_file", "%v", err)
		return
	}
	c.path, c.sha256 = p, d.SHA256
	c.rows, c.arms, c.dim = d.N, d.K, d.D
	c.classes = d.Classes
}

// classNames names the dataset's classes in order, for an error about the
// cost matrix's shape: a private file's labels, or a shipped dataset's
// classes (loaded for the message only).
func (c *Context) classNames() string {
	names := c.classes
	if names == nil && c.Dataset != "" {
		if d, err := dataset.Load(c.Dataset); err == nil {
			names = d.Classes
		}
	}
	if names == nil {
		return ""
	}
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", i, n)
	}
	return " (in order: " + b.String() + ")"
}

// checkCost reports the problems of a dataset's cost matrix: its shape
// against the K classes, and every value outside [0, 1] (NaN included).
// A matrix whose every row is constant is refused: no arm would ever be
// better than another.
func (c *Context) checkCost(bad func(field, format string, args ...any)) {
	if c.Cost == nil {
		return
	}
	if c.Model != "" {
		bad("context.cost", "only for a dataset: a model's rewards come from its parameter")
		return
	}
	k := c.arms
	if len(c.Cost) != k {
		what := "context.dataset " + c.Dataset
		if c.DatasetFile != "" {
			what = "context.dataset_file " + c.DatasetFile
		}
		bad("context.cost", "%d rows, want %d: one per class of %s%s", len(c.Cost), k, what, c.classNames())
		return
	}
	if c.costNull != "" {
		bad(c.costNull, "null is not a cost: give a number in [0, 1]")
		return
	}
	constant, ok := true, true
	for y, row := range c.Cost {
		if len(row) != k {
			bad(fmt.Sprintf("context.cost[%d]", y), "%d values, want %d: one per arm (class)%s", len(row), k, c.classNames())
			ok = false
			continue
		}
		for a, v := range row {
			if math.IsNaN(v) || v < 0 || v > 1 {
				bad(fmt.Sprintf("context.cost[%d][%d]", y, a), "%v is not a cost in [0, 1] (scale the costs to [0, 1]: divide by the largest)", v)
				ok = false
			}
			constant = constant && v == row[0]
		}
	}
	if ok && constant {
		bad("context.cost", "every row is constant: no arm is ever better than another, so every policy has regret 0")
	}
}

// checkContext reports the problems of a contextual scenario: its
// `context:` block, the keys it refuses (feedback, init_pulls other than
// 0) and a horizon beyond the dataset's rows.
func (s *Scenario) checkContext(bad func(field, format string, args ...any), horizonOK bool) {
	c := s.Context
	c.resolve(s.Source)
	if s.environmentGiven {
		bad("environment", "give context (a contextual scenario) or environment (a context-free one), not both")
	}
	if s.InitPulls != 0 {
		bad("init_pulls", "must be 0 (or absent) in a contextual scenario, got %d: there are no forced rounds", s.InitPulls)
	}
	if s.Feedback != nil {
		bad("feedback", "not allowed in a contextual scenario: rewards are immediate")
	}
	for i, p := range s.Policies {
		if p.Feedback != nil {
			bad(fmt.Sprintf("policies[%d].feedback", i), "not allowed in a contextual scenario: rewards are immediate")
		}
	}
	if c.errMsg != "" {
		bad(c.errField, "%s", c.errMsg)
		return
	}
	c.checkCost(bad)
	if c.Model != "" {
		switch c.Model {
		case LinearGaussian:
			switch {
			case math.IsNaN(c.NoiseSD) || math.IsInf(c.NoiseSD, 0) || c.NoiseSD <= 0:
				bad("context.noise_sd", "must be a finite number > 0 for %s, got %v", LinearGaussian, c.NoiseSD)
			case c.NoiseSD > 1e6:
				bad("context.noise_sd", "%v is more than 1e6", c.NoiseSD)
			}
		case LogisticBernoulli:
			if c.NoiseSD != 0 {
				bad("context.noise_sd", "must be absent for %s (the probabilities fix the noise), got %v", LogisticBernoulli, c.NoiseSD)
			}
		default:
			bad("context.model", "unknown model %q (want %s or %s)", c.Model, LinearGaussian, LogisticBernoulli)
		}
		switch {
		case c.Arms < 2:
			bad("context.arms", "must be >= 2, got %d", c.Arms)
		case c.Arms > MaxContextArms:
			bad("context.arms", "%d exceeds the maximum %d", c.Arms, MaxContextArms)
		}
		switch {
		case c.Dim < 1:
			bad("context.dim", "must be >= 1, got %d", c.Dim)
		case c.Dim > MaxContextDim:
			bad("context.dim", "%d exceeds the maximum %d", c.Dim, MaxContextDim)
		case c.Arms >= 2 && c.Arms*c.Dim > MaxContextWidth:
			bad("context.dim", "arms %d x dim %d = %d values per replication, more than the maximum %d", c.Arms, c.Dim, c.Arms*c.Dim, MaxContextWidth)
		}
		return
	}
	if horizonOK && s.Horizon > c.rows {
		field := "context.dataset"
		name := c.Dataset
		if c.DatasetFile != "" {
			field, name = "context.dataset_file", c.DatasetFile
		}
		bad("horizon", "%d is more than the %d rows of %s (%s): each replication plays each row at most once", s.Horizon, c.rows, field, name)
	}
}
