// Package results reads and writes the results file of design §7.
package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/internal/wire"
)

// Schema identifies version 1 of the results file.
const Schema = "regretbench/results/v1"

// File is a results file: one scenario run (or shard of one) and every
// policy's metrics.
type File struct {
	Schema   string     `json:"schema"`
	Scenario Scenario   `json:"scenario"`
	Shard    Shard      `json:"shard"`
	Complete bool       `json:"complete"` // false when the run was interrupted
	Policies []*Policy  `json:"policies"`
	Bench    *BenchInfo `json:"bench,omitempty"`
	// Comparison is the comparison section of a run that compared
	// policies (bench --with, --compare-to), as host/compare writes it:
	// its spec names the policies under comparison and their baselines.
	// Readers recompute the numbers from the policies with
	// compare.FromFile rather than trust them; absent otherwise.
	Comparison json.RawMessage `json:"comparison,omitempty"`
}

// Scenario records what was run.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Family      string `json:"family"`
	Arms        int    `json:"arms"`
	Horizon     int    `json:"horizon"`
	Runs        int    `json:"runs"`
	// Seed is the scenario seed: a JSON number for an integer seed, the
	// string "0x" + 64 hex digits for a secret one (design §4, sealed
	// runs), which a results file records in full so the run can be
	// reproduced.
	Seed seed.Seed `json:"seed"`
	// Streams names how the reward streams were derived from the seed
	// (env.Streams: "sha256-v2" for an integer seed, "hmac-sha256-v1" for
	// a secret one); empty in files from before version sha256-v2. Runs
	// with different streams face different rewards.
	Streams   string    `json:"streams,omitempty"`
	InitPulls int       `json:"init_pulls"`
	Means     []float64 `json:"means"`
	NoiseSD   float64   `json:"noise_sd"`
	// NoiseKnown says whether noise_sd was sent to the plugins; nil in
	// files written before it was recorded.
	NoiseKnown  *bool `json:"noise_known,omitempty"`
	Checkpoints []int `json:"checkpoints"`
	// Feedback is the scenario's `feedback:` ("delay 10", "geometric mean
	// 10", "batch 100"); empty for immediate feedback.
	Feedback string `json:"feedback,omitempty"`
	// Changes, Drift and RandomChanges record a changing environment as
	// the scenario's environment declares it (design §8), with the scale
	// applied as in Means; all absent for a stationary one (files
	// unchanged). At most one is set.
	Changes       []Change       `json:"changes,omitempty"`
	Drift         []Change       `json:"drift,omitempty"`
	RandomChanges *RandomChanges `json:"random_changes,omitempty"`
	// Context records a contextual scenario (docs/contextual.md): Means
	// is then empty, Family the family the plugins were told, Arms the
	// arms and InitPulls 0; absent for a context-free one (files
	// unchanged).
	Context *Context `json:"context,omitempty"`
}

// Context is what a results file records of a contextual scenario's
// `context:`: the dataset (a shipped one by name, a private one by the
// path the scenario gave and its SHA-256) or the model, and the shape of
// the contexts.
type Context struct {
	Dataset       string  `json:"dataset,omitempty"`
	DatasetFile   string  `json:"dataset_file,omitempty"`
	DatasetSHA256 string  `json:"dataset_sha256,omitempty"`
	Rows          int     `json:"rows,omitempty"` // a dataset's rows
	Model         string  `json:"model,omitempty"`
	Dim           int     `json:"dim"`
	PerArm        bool    `json:"per_arm,omitempty"`
	NoiseSD       float64 `json:"noise_sd,omitempty"`
	// Cost is the scenario's context.cost: Cost[y][a] the cost of arm a
	// on a row of class y, in [0, 1].
	Cost [][]float64 `json:"cost,omitempty"`
}

// Probs summarises the probabilities a contextual policy reported for the
// arms it chose (protocol 3's optional StepResult.probs): over Rounds
// replication-rounds, Reported gave one (not 0), the smallest of which
// was Min and their mean Mean. Absent for a policy that reported none.
type Probs struct {
	Rounds   int64   `json:"rounds"`
	Reported int64   `json:"reported"`
	Min      float64 `json:"min"`
	Mean     float64 `json:"mean"`
}

// Change is a point of Scenario.Changes (the means from round At on) or
// of Scenario.Drift (the means at round At).
type Change struct {
	At    int       `json:"at"`
	Means []float64 `json:"means"`
}

// RandomChanges records random breakpoints: a Poisson process of Rate per
// round, each arm's mean redrawn from Means.
type RandomChanges struct {
	Rate  float64          `json:"rate"`
	Means MeanDistribution `json:"means"`
}

// MeanDistribution is the distribution of a redrawn mean: uniform on
// [Uniform[0], Uniform[1]).
type MeanDistribution struct {
	Uniform []float64 `json:"uniform"`
}

// checkChanges refuses recorded changes that no run could have written:
// more than one kind, points out of (1, horizon] or not increasing, a
// mean per arm missing or not a number, a rate or bounds out of range.
func (s Scenario) checkChanges() error {
	kinds := 0
	for _, l := range []struct {
		name   string
		points []Change
	}{{"changes", s.Changes}, {"drift", s.Drift}} {
		if l.points == nil {
			continue
		}
		kinds++
		if len(l.points) == 0 {
			return fmt.Errorf("scenario.%s: empty", l.name)
		}
		for j, p := range l.points {
			if p.At < 2 || p.At > s.Horizon || (j > 0 && p.At <= l.points[j-1].At) {
				return fmt.Errorf("scenario.%s[%d].at = %d: want rounds strictly increasing in (1, horizon %d]", l.name, j, p.At, s.Horizon)
			}
			if len(p.Means) != s.Arms {
				return fmt.Errorf("scenario.%s[%d]: %d means for %d arms", l.name, j, len(p.Means), s.Arms)
			}
			if err := checkNumbers(fmt.Sprintf("scenario.%s[%d].means", l.name, j), p.Means); err != nil {
				return err
			}
		}
	}
	if r := s.RandomChanges; r != nil {
		kinds++
		if !(r.Rate > 0 && r.Rate <= 1) {
			return fmt.Errorf("scenario.random_changes.rate = %v: want (0, 1]", r.Rate)
		}
		u := r.Means.Uniform
		if len(u) != 2 {
			return fmt.Errorf("scenario.random_changes.means.uniform: want [lo, hi], got %d numbers", len(u))
		}
		if err := checkNumbers("scenario.random_changes.means.uniform", u); err != nil {
			return err
		}
		if u[0] > u[1] {
			return fmt.Errorf("scenario.random_changes.means.uniform: lo %v > hi %v", u[0], u[1])
		}
	}
	if kinds > 1 {
		return fmt.Errorf("scenario: more than one of changes, drift and random_changes")
	}
	return nil
}

// Shard says which slice of the replications a file holds.
type Shard struct {
	Index        int      `json:"index"`
	Count        int      `json:"count"`
	Replications []uint64 `json:"replications,omitempty"` // global indices, in order; omitted when all
}

// BenchInfo records the host that produced the file and, for a file a
// run wrote with --out, how it was produced: what a report needs to say
// so that a reader can reproduce it. The optional fields are absent from
// files of older builds and from files built in memory.
type BenchInfo struct {
	Version string `json:"version"`
	// Command is the command line of the run: "bench" and its arguments.
	Command []string `json:"command,omitempty"`
	// Host is the name of the machine the run ran on.
	Host string `json:"host,omitempty"`
	// Date is when the run finished, in RFC 3339 (UTC).
	Date string `json:"date,omitempty"`
}

// HostVersion identifies the running bench build, for BenchInfo: the main
// module's version and, when the build recorded them, the VCS revision it
// was built from and "+dirty" for uncommitted changes. Reward streams
// belong to a build, so shards of different builds must not be merged nor
// a results file of another build resumed.
func HostVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		v += " " + rev[:min(12, len(rev))]
		if dirty {
			v += "+dirty"
		}
	}
	return v
}

// Series is a metric's across-replication mean and standard error, aligned
// with the policy's checkpoints.
type Series struct {
	Mean []float64 `json:"mean"`
	SE   []float64 `json:"se"`
}

// DiagSeries is a diagnostic's mean and standard error at the checkpoints
// where the policy made its own decisions.
type DiagSeries struct {
	Checkpoints []int     `json:"checkpoints"`
	Mean        []float64 `json:"mean"`
	SE          []float64 `json:"se"`
}

// Limits are the limits a policy's plugin ran under (package sandbox):
// memory and disk as sizes ("4GiB"), tasks, open files and the private
// directory's entries as counts, and By, how memory and tasks were
// enforced: "cgroup v2", "cgroup v1", "rlimit" (memory is then address
// space) or "none". A limit not in force is absent, and Unlimited says
// why.
type Limits struct {
	Memory    string   `json:"memory,omitempty"`
	Tasks     int64    `json:"tasks,omitempty"`
	Files     int64    `json:"files,omitempty"`
	Disk      string   `json:"disk,omitempty"`
	DiskFiles int64    `json:"disk_files,omitempty"`
	By        string   `json:"by"`
	Unlimited []string `json:"unlimited,omitempty"`
}

// Status values of a policy.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Policy is one policy's results.
type Policy struct {
	Label         string `json:"label"`
	Plugin        string `json:"plugin"`
	PluginVersion string `json:"plugin_version"`
	PluginSHA256  string `json:"plugin_sha256,omitempty"`
	// Sandbox is the confinement the policy's plugin ran under: "strict",
	// "off", or the layers auto could have, such as "landlock+seccomp".
	// A merge of shards that ran under different ones names each,
	// weakest first.
	Sandbox string `json:"sandbox,omitempty"`
	// Limits are the limits the policy's plugin ran under, and how they
	// were enforced; absent from files written before bench had them.
	Limits *Limits        `json:"limits,omitempty"`
	Params map[string]any `json:"params"`
	// Color is the policy's colour in figures, "#RRGGBB", when its
	// scenario entry sets one (`color:`); empty: the palette's, by order
	// of appearance (host/plot).
	Color string `json:"color,omitempty"`
	// Feedback is the policy's feedback mode when not immediate (its own
	// `feedback:` or the scenario's), as Scenario.Feedback.
	Feedback    string `json:"feedback,omitempty"`
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	Checkpoints []int  `json:"checkpoints"`
	Regret      Series `json:"regret"`
	Under       Series `json:"underestimation"`
	RegretUnder Series `json:"regret_under"`
	RegretNot   Series `json:"regret_not_under"`
	// PVLoss is the progressive-validation loss (metric.PVLoss) of a
	// policy of a contextual run, whose Final and Traces then hold
	// "pv_loss" too; nil otherwise.
	PVLoss *Series `json:"pv_loss,omitempty"`
	// Probs, in a contextual run, summarises the probabilities the policy
	// reported; nil when it reported none.
	Probs       *Probs                `json:"probs,omitempty"`
	Final       map[string][]float64  `json:"final"`
	Diagnostics map[string]DiagSeries `json:"diagnostics,omitempty"`
	Seconds     float64               `json:"seconds"`
	// Distribution summarizes Final over the replications (quantiles,
	// the worst replication); absent from files written before it was
	// recorded, and from failed policies.
	Distribution *Distribution `json:"distribution,omitempty"`
	// Replications, when not 0, is how many replications the policy used:
	// the first that many of the file's. A sequential gate (bench
	// --baseline FILE --sequential) stops a policy as soon as its verdict
	// is known; its final values and traces then hold only these. 0 (and
	// absent) means all of them.
	Replications int `json:"replications,omitempty"`
	// Audit, when the run was audited (--audit N), names the replications
	// that were replayed alone and whether each gave its run's values.
	Audit *Audit `json:"audit,omitempty"`
	// Traces holds every replication's values at every checkpoint. Shard
	// files carry it so that `bench merge` can rebuild the exact means and
	// standard errors of the unsharded run; other files omit it.
	Traces *Traces `json:"traces,omitempty"`

	// dropped is the shape of the traces that ReadFileWithoutTraces read
	// and did not keep, for Check.
	dropped *traceShapes
	// sandboxSeen is set by SetSandbox: this process ran the plugin
	// under Sandbox. A policy read from a file never has it.
	sandboxSeen bool
}

// Unverified follows a sandbox level that a results file records and
// nothing proves: a file is not signed, and anyone may edit its "sandbox"
// field (a run with --sandbox off made to say "strict").
const Unverified = " (as recorded, unverified)"

// SetSandbox records level as the sandbox p's plugin ran under in this
// process, which SandboxShown then states plainly.
func (p *Policy) SetSandbox(level string) {
	p.Sandbox, p.sandboxSeen = level, true
}

// SandboxSeen reports whether this process ran p's plugin under
// p.Sandbox (SetSandbox), rather than read it from a file.
func (p *Policy) SandboxSeen() bool { return p.sandboxSeen }

// SandboxShown is p.Sandbox as reports and the gate show it: plainly when
// this process ran the plugin under it (SetSandbox), else followed by
// Unverified; "" when p records none.
func (p *Policy) SandboxShown() string {
	if p.Sandbox == "" || p.sandboxSeen {
		return p.Sandbox
	}
	return p.Sandbox + Unverified
}

// Sandboxes says what sandbox f's policies' plugins ran under: the one
// they share, else "per policy: " and each policy's label and sandbox;
// "" when no policy records one (older files, plugins served in process).
// A level read from a file is followed by Unverified (SandboxShown), once
// at the end when no policy's was seen by this process.
func (f *File) Sandboxes() string {
	var per, shown []string
	seen, unseen := 0, 0
	for _, p := range f.Policies {
		if p.Sandbox == "" {
			continue
		}
		per = append(per, p.Label+" "+p.Sandbox)
		shown = append(shown, p.Label+" "+p.SandboxShown())
		if p.sandboxSeen {
			seen++
		} else {
			unseen++
		}
	}
	tail := ""
	if seen == 0 && unseen > 0 {
		tail = Unverified
	}
	shared, same := "", true
	for _, p := range f.Policies {
		if p.Sandbox != "" {
			if shared == "" {
				shared = p.Sandbox
			}
			same = same && p.Sandbox == shared
		}
	}
	switch {
	case shared == "":
		return ""
	case same && (seen == 0 || unseen == 0):
		return shared + tail
	case seen > 0 && unseen > 0:
		return "per policy: " + strings.Join(shown, "; ") // some seen, some read back
	}
	return "per policy: " + strings.Join(per, "; ") + tail
}

// traceShapes are the lengths of the rows of a policy's traces, by name.
type traceShapes struct {
	metrics, diagnostics map[string][]int
}

// traceShapes returns the shape of p's traces, kept or dropped; nil when
// it has none.
func (p *Policy) traceShapes() *traceShapes {
	if p.Traces == nil {
		return p.dropped
	}
	shape := func(m map[string][][]float64) map[string][]int {
		out := make(map[string][]int, len(m))
		for name, rows := range m {
			lens := make([]int, len(rows))
			for c, row := range rows {
				lens[c] = len(row)
			}
			out[name] = lens
		}
		return out
	}
	return &traceShapes{metrics: shape(p.Traces.Metrics), diagnostics: shape(p.Traces.Diagnostics)}
}

// Audit is the outcome of replaying some of a policy's replications each
// alone (bench run --audit): OK when every one gave, bit for bit, the
// final values it had in the run.
type Audit struct {
	Replications []uint64 `json:"replications"`
	OK           bool     `json:"ok"`
	// Default, when the audit was on without --audit, says why: a
	// sealed run (--seed random), or channels between policies the
	// sandbox left open.
	Default string `json:"default,omitempty"`
}

// Traces are per-replication values: Metrics[name][c][i] is metric name at
// checkpoint c for the i-th replication of the file (in the order of
// Shard.Replications), and Diagnostics likewise at the diagnostic's own
// checkpoints.
type Traces struct {
	Metrics     map[string][][]float64 `json:"metrics"`
	Diagnostics map[string][][]float64 `json:"diagnostics,omitempty"`
}

// Metric returns the series of the named metric (see metric.Names).
//
// metric.PVLoss is p.PVLoss, an empty series when p has none.
func (p *Policy) Metric(name string) (*Series, error) {
	if name == metric.PVLoss {
		if p.PVLoss == nil {
			return &Series{}, nil
		}
		return p.PVLoss, nil
	}
	i, ok := metric.Index(name)
	if !ok {
		return nil, metric.Check(name)
	}
	return p.series()[i], nil
}

// MergeProbs combines the probability summaries of two disjoint sets of
// replications of one policy (batches, shards, a sequential gate's
// groups); either may be nil.
func MergeProbs(a, b *Probs) *Probs {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := Probs{Rounds: a.Rounds + b.Rounds, Reported: a.Reported + b.Reported, Min: min(a.Min, b.Min)}
	out.Mean = (a.Mean*float64(a.Reported) + b.Mean*float64(b.Reported)) / float64(out.Reported)
	out.Mean = min(max(out.Mean, out.Min), 1)
	return &out
}

// MetricNames are the metrics f's policies record: metric.Names, and
// metric.PVLoss after them in a contextual run. Code that gathers or
// compares every metric of a file (merge, the sequential gate, the audit)
// loops over these.
func (f *File) MetricNames() []string {
	names := metric.Names[:]
	if f.Scenario.Context != nil {
		names = append(names[:len(names):len(names)], metric.PVLoss)
	}
	return names
}

// series returns p's series in the order of metric.Names (their JSON
// tags are those names: TestSeriesTagsAreMetricNames).
func (p *Policy) series() [metric.Count]*Series {
	return [metric.Count]*Series{&p.Regret, &p.Under, &p.RegretUnder, &p.RegretNot}
}

// Encode writes f as indented JSON. Strings are written as they are, not
// with < > & escaped as \u003c \u003e \u0026 (encoding/json's default,
// for JSON put unescaped inside HTML): a results file is read by programs
// and people, and whoever puts it in a page escapes it for that page.
func (f *File) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// MaxFileSize caps the size of a results file ReadFile accepts. Shard
// files carry every replication's value at every checkpoint: 1000
// replications of 4 metrics at 2000 checkpoints take about 150 MB.
const MaxFileSize = 1 << 30

// WriteFile writes f to path atomically: a temporary file in the same
// directory renamed over path, so a crash never leaves a half-written file.
// It refuses to replace a symbolic link or anything but a regular file.
// A new file gets mode 0666 less the umask (0644 usually); an existing
// file keeps its mode.
func (f *File) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		return fmt.Errorf("results %s: %w", path, err)
	}
	if err := safeio.WriteFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("results %s: %w", path, err)
	}
	return nil
}

// ReadFile reads and checks a results file. Errors name the file and what
// is wrong with it. A path that is not a regular file (a FIFO, a device)
// is refused at once, and a file over MaxFileSize unread. The file is
// streamed (decode.go): reading it takes about what it decodes to, not
// copies of its text.
func ReadFile(path string) (*File, error) {
	r, err := safeio.Open(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	defer r.Close()
	f, err := decode(r, false)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	return f, nil
}

// ReadFileWithoutTraces reads and checks a results file as ReadFile does,
// but does not keep its traces: their numbers are checked as they are
// read, and their shape by Check, and the policies have no Traces. For
// readers that need the final values and series only (bench gate): they
// then hold about what a file without traces takes, whatever the file's
// size.
func ReadFileWithoutTraces(path string) (*File, error) {
	r, err := safeio.Open(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	defer r.Close()
	f, err := decode(r, true)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	return f, nil
}

// ReadFiles reads and checks the results files at paths, in order, and
// stops at the first that ReadFile refuses, with its error.
func ReadFiles(paths []string) ([]*File, error) {
	files := make([]*File, len(paths))
	for i, path := range paths {
		f, err := ReadFile(path)
		if err != nil {
			return nil, err
		}
		files[i] = f
	}
	return files, nil
}

// Decode parses and checks a results file's contents. Besides unknown
// keys, it refuses a key given twice in one object and a key that matches
// a field only when case is ignored (as CheckKeys), which encoding/json
// would otherwise accept, keeping the last.
func Decode(data []byte) (*File, error) {
	return decode(bytes.NewReader(data), false)
}

// MaxDiagnostics bounds the diagnostics of a policy in a results file:
// those a plugin may declare (sdk.MaxDiagnostics).
const MaxDiagnostics = wire.MaxDiagnostics

// MaxAbs bounds the magnitude of every number of a results file. JSON
// cannot hold NaN or infinities, but a number near the largest float64
// turns infinite in the sums, ranges and squares that merge, gate and plot
// compute from it (mean + SE, a sum over replications); a reader refuses
// such a file rather than fail later or draw nonsense.
const MaxAbs = 1e300

// checkNumbers refuses a value of xs that is not finite or exceeds MaxAbs,
// naming field and the index.
func checkNumbers(field string, xs []float64) error {
	for j, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > MaxAbs {
			return fmt.Errorf("%s[%d] = %v: numbers must be finite and within ±%g", field, j, x, MaxAbs)
		}
	}
	return nil
}

// checkCost refuses a recorded cost matrix that is not arms x arms
// values in [0, 1].
func checkCost(cost [][]float64, arms int) error {
	if cost == nil {
		return nil
	}
	if len(cost) != arms {
		return fmt.Errorf("scenario.context.cost: %d rows, want one per arm (%d)", len(cost), arms)
	}
	for y, row := range cost {
		if len(row) != arms {
			return fmt.Errorf("scenario.context.cost[%d]: %d values, want %d", y, len(row), arms)
		}
		for a, c := range row {
			if !(c >= 0 && c <= 1) {
				return fmt.Errorf("scenario.context.cost[%d][%d] = %v: costs are in [0, 1]", y, a, c)
			}
		}
	}
	return nil
}

// checkReplications refuses replication indices that are out of range
// (>= runs) or listed twice.
func checkReplications(reps []uint64, runs int) error {
	if len(reps) > runs {
		return fmt.Errorf("shard.replications lists %d replications but scenario.runs = %d", len(reps), runs)
	}
	seen := make(map[uint64]int, len(reps))
	for j, r := range reps {
		if r >= uint64(runs) {
			return fmt.Errorf("shard.replications[%d] = %d: out of range for scenario.runs = %d", j, r, runs)
		}
		if k, dup := seen[r]; dup {
			return fmt.Errorf("shard.replications[%d] = %d: already listed at shard.replications[%d]", j, r, k)
		}
		seen[r] = j
	}
	return nil
}

// Check verifies the internal consistency of f, and that every number is
// finite and within ±MaxAbs.
func (f *File) Check() error {
	if f.Schema != Schema {
		return fmt.Errorf("schema %q, want %q", f.Schema, Schema)
	}
	ctx := f.Scenario.Context
	switch {
	case ctx != nil && (len(f.Scenario.Means) != 0 || f.Scenario.Arms < 2 || ctx.Dim < 1 || f.Scenario.InitPulls != 0):
		return fmt.Errorf("scenario.context: a contextual scenario has no means, at least 2 arms, dim >= 1 and init_pulls 0; got %d means, %d arms, dim %d, init_pulls %d",
			len(f.Scenario.Means), f.Scenario.Arms, ctx.Dim, f.Scenario.InitPulls)
	case ctx == nil && f.Scenario.Arms != len(f.Scenario.Means):
		return fmt.Errorf("scenario.arms = %d but %d means", f.Scenario.Arms, len(f.Scenario.Means))
	}
	if ctx != nil {
		if err := checkNumbers("scenario.context.noise_sd", []float64{ctx.NoiseSD}); err != nil {
			return err
		}
		if err := checkCost(ctx.Cost, f.Scenario.Arms); err != nil {
			return err
		}
	}
	if f.Scenario.Runs < 1 || f.Scenario.Horizon < 1 {
		return fmt.Errorf("scenario.runs = %d and scenario.horizon = %d, want both >= 1", f.Scenario.Runs, f.Scenario.Horizon)
	}
	if f.Shard.Count < 1 || f.Shard.Index < 0 || f.Shard.Index >= f.Shard.Count {
		return fmt.Errorf("shard %d/%d: want 0 <= index < count", f.Shard.Index, f.Shard.Count)
	}
	if err := checkNumbers("scenario.means", f.Scenario.Means); err != nil {
		return err
	}
	if err := checkNumbers("scenario.noise_sd", []float64{f.Scenario.NoiseSD}); err != nil {
		return err
	}
	if err := f.Scenario.checkChanges(); err != nil {
		return err
	}
	if err := checkReplications(f.Shard.Replications, f.Scenario.Runs); err != nil {
		return err
	}
	nrep := f.Scenario.Runs
	if f.Shard.Replications != nil {
		nrep = len(f.Shard.Replications)
	}
	for i, p := range f.Policies {
		if p == nil {
			return fmt.Errorf("policies[%d]: null", i)
		}
		// As many diagnostics as a plugin may declare: each is a figure
		// of bench plot and columns of every report, and 5,000 kept bench
		// plot busy for minutes.
		if len(p.Diagnostics) > MaxDiagnostics {
			return fmt.Errorf("policies[%d] %q: %d diagnostics, more than the %d a plugin may declare", i, p.Label, len(p.Diagnostics), MaxDiagnostics)
		}
		switch p.Status {
		case StatusOK:
		case StatusFailed:
			if p.Error == "" {
				return fmt.Errorf("policies[%d] %q: status failed without an error", i, p.Label)
			}
			continue
		default:
			return fmt.Errorf("policies[%d] %q: unknown status %q (want %q or %q)", i, p.Label, p.Status, StatusOK, StatusFailed)
		}
		nrep := nrep
		if p.Replications != 0 {
			if p.Replications < 1 || p.Replications > nrep {
				return fmt.Errorf("policies[%d] %q: replications = %d, want 1..%d", i, p.Label, p.Replications, nrep)
			}
			nrep = p.Replications
		}
		n := len(p.Checkpoints)
		if n == 0 || p.Checkpoints[n-1] != f.Scenario.Horizon {
			return fmt.Errorf("policies[%d] %q: checkpoints must end at the horizon %d", i, p.Label, f.Scenario.Horizon)
		}
		for c := 1; c < n; c++ {
			if p.Checkpoints[c] <= p.Checkpoints[c-1] || p.Checkpoints[0] < 1 {
				return fmt.Errorf("policies[%d] %q: checkpoints must increase from 1 or more, got %v", i, p.Label, p.Checkpoints)
			}
		}
		if err := checkNumbers(fmt.Sprintf("policies[%d] %q: seconds", i, p.Label), []float64{p.Seconds}); err != nil {
			return err
		}
		ts := p.traceShapes()
		for _, name := range sortedKeys(p.Diagnostics) {
			d := p.Diagnostics[name]
			if len(d.Mean) != len(d.Checkpoints) || len(d.SE) != len(d.Checkpoints) {
				return fmt.Errorf("policies[%d] %q: diagnostics.%s has %d means and %d SEs for %d checkpoints", i, p.Label, name, len(d.Mean), len(d.SE), len(d.Checkpoints))
			}
			for c, t := range d.Checkpoints {
				if t < 1 || t > f.Scenario.Horizon || (c > 0 && t <= d.Checkpoints[c-1]) {
					return fmt.Errorf("policies[%d] %q: diagnostics.%s.checkpoints must increase within 1..%d, got %v", i, p.Label, name, f.Scenario.Horizon, d.Checkpoints)
				}
			}
			for _, s := range []struct {
				field string
				xs    []float64
			}{{"mean", d.Mean}, {"se", d.SE}} {
				if err := checkNumbers(fmt.Sprintf("policies[%d] %q: diagnostics.%s.%s", i, p.Label, name, s.field), s.xs); err != nil {
					return err
				}
			}
			if ts != nil {
				lens, ok := ts.diagnostics[name]
				if !ok {
					return fmt.Errorf("policies[%d] %q: traces.diagnostics.%s is missing (the file has traces and diagnostics.%s)", i, p.Label, name, name)
				}
				if len(lens) != len(d.Checkpoints) {
					return fmt.Errorf("policies[%d] %q: traces.diagnostics.%s has %d checkpoints, want %d", i, p.Label, name, len(lens), len(d.Checkpoints))
				}
				for c, n := range lens {
					if n != nrep {
						return fmt.Errorf("policies[%d] %q: traces.diagnostics.%s[%d] has %d values for %d replications", i, p.Label, name, c, n, nrep)
					}
					if p.Traces == nil {
						continue // dropped: checked as read
					}
					if err := checkNumbers(fmt.Sprintf("policies[%d] %q: traces.diagnostics.%s[%d]", i, p.Label, name, c), p.Traces.Diagnostics[name][c]); err != nil {
						return err
					}
				}
			}
		}
		if ts != nil {
			for _, name := range sortedKeys(ts.diagnostics) {
				if _, ok := p.Diagnostics[name]; !ok {
					return fmt.Errorf("policies[%d] %q: traces.diagnostics.%s has no diagnostics.%s", i, p.Label, name, name)
				}
			}
		}
		names := metric.Names[:]
		switch {
		case ctx != nil && p.PVLoss == nil:
			return fmt.Errorf("policies[%d] %q: no %s, which a contextual run records", i, p.Label, metric.PVLoss)
		case ctx == nil && (p.PVLoss != nil || p.Probs != nil):
			return fmt.Errorf("policies[%d] %q: %s or probs in a context-free run", i, p.Label, metric.PVLoss)
		case ctx != nil:
			names = append(names[:len(names):len(names)], metric.PVLoss)
		}
		if pr := p.Probs; pr != nil {
			if pr.Rounds < 1 || pr.Reported < 1 || pr.Reported > pr.Rounds || !(pr.Min > 0 && pr.Min <= 1) || !(pr.Mean >= pr.Min && pr.Mean <= 1) {
				return fmt.Errorf("policies[%d] %q: probs %+v: want 1 <= reported <= rounds and 0 < min <= mean <= 1", i, p.Label, *pr)
			}
		}
		for _, name := range names {
			s, _ := p.Metric(name)
			if len(s.Mean) != n || len(s.SE) != n {
				return fmt.Errorf("policies[%d] %q: %s has %d means and %d SEs for %d checkpoints", i, p.Label, name, len(s.Mean), len(s.SE), n)
			}
			if err := checkNumbers(fmt.Sprintf("policies[%d] %q: %s.mean", i, p.Label, name), s.Mean); err != nil {
				return err
			}
			if err := checkNumbers(fmt.Sprintf("policies[%d] %q: %s.se", i, p.Label, name), s.SE); err != nil {
				return err
			}
			if len(p.Final[name]) != nrep {
				return fmt.Errorf("policies[%d] %q: final.%s has %d values for %d replications", i, p.Label, name, len(p.Final[name]), nrep)
			}
			if err := checkNumbers(fmt.Sprintf("policies[%d] %q: final.%s", i, p.Label, name), p.Final[name]); err != nil {
				return err
			}
			if ts != nil {
				lens := ts.metrics[name]
				if len(lens) != n {
					return fmt.Errorf("policies[%d] %q: traces.metrics.%s has %d checkpoints, want %d", i, p.Label, name, len(lens), n)
				}
				for c, l := range lens {
					if l != nrep {
						return fmt.Errorf("policies[%d] %q: traces.metrics.%s[%d] has %d values for %d replications", i, p.Label, name, c, l, nrep)
					}
					if p.Traces == nil {
						continue // dropped: checked as read
					}
					if err := checkNumbers(fmt.Sprintf("policies[%d] %q: traces.metrics.%s[%d]", i, p.Label, name, c), p.Traces.Metrics[name][c]); err != nil {
						return err
					}
				}
			}
		}
		if err := checkDistribution(fmt.Sprintf("policies[%d] %q", i, p.Label), p, f.Shard.Replications); err != nil {
			return err
		}
	}
	return nil
}

// sortedKeys returns m's keys in order, so that Check reports the same
// error for the same file every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Policy returns the policy with the given label, or nil.
func (f *File) Policy(label string) *Policy {
	for _, p := range f.Policies {
		if p.Label == label {
			return p
		}
	}
	return nil
}

// SortPolicies orders the policies as labels lists them; others go last.
func (f *File) SortPolicies(labels []string) {
	rank := map[string]int{}
	for i, l := range labels {
		rank[l] = i + 1
	}
	key := func(p *Policy) int {
		if r := rank[p.Label]; r > 0 {
			return r
		}
		return len(labels) + 1
	}
	sort.SliceStable(f.Policies, func(i, j int) bool { return key(f.Policies[i]) < key(f.Policies[j]) })
}

// DiagTrace is one diagnostic's per-replication values: Rows[c][i] at
// Checkpoints[c] for the i-th replication.
type DiagTrace struct {
	Checkpoints []int
	Rows        [][]float64
}

// Summarize fills p's checkpoints, metric series, final values and
// diagnostics from per-replication traces: metrics[name][c][i] at cps for
// every name of metric.Names (and metric.PVLoss in a contextual run), and
// diags by name. With keep, p.Traces holds
// the traces too (shard files need them for an exact merge). It is the one
// place where traces become the numbers a results file reports, for a run
// and for a merge alike.
func (p *Policy) Summarize(cps []int, metrics map[string][][]float64, diags map[string]DiagTrace, keep bool) {
	p.Checkpoints = cps
	p.Final = map[string][]float64{}
	for _, name := range metric.Names {
		rows := metrics[name]
		s, _ := p.Metric(name)
		s.Mean, s.SE = metric.Series(rows)
		p.Final[name] = rows[len(rows)-1]
	}
	if rows, ok := metrics[metric.PVLoss]; ok {
		p.PVLoss = new(Series)
		p.PVLoss.Mean, p.PVLoss.SE = metric.Series(rows)
		p.Final[metric.PVLoss] = rows[len(rows)-1]
	}
	if len(diags) > 0 {
		p.Diagnostics = map[string]DiagSeries{}
		for name, d := range diags {
			mean, se := metric.Series(d.Rows)
			p.Diagnostics[name] = DiagSeries{Checkpoints: d.Checkpoints, Mean: mean, SE: se}
		}
	}
	if keep {
		p.Traces = &Traces{Metrics: metrics}
		if len(diags) > 0 {
			p.Traces.Diagnostics = map[string][][]float64{}
			for name, d := range diags {
				p.Traces.Diagnostics[name] = d.Rows
			}
		}
	}
}
