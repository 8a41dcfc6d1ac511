package board

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/board/attest"
	"github.com/regretbench/regretbench/host/results"
)

// Outcomes of a run.
const (
	OutcomeOK     = "ok"
	OutcomeFailed = "failed"
)

// RunPredicate is the predicate of a submission's run attestation: what
// ran, on what, how, and with what outcome. The files it names are also
// the statement's subjects, with their SHA-256.
type RunPredicate struct {
	Board      string `json:"board"`
	Submission int    `json:"submission"` // N of runs/N
	LogIndex   int64  `json:"log_index"`  // the attestation's index in the log
	Submitter  string `json:"submitter"`
	Plugin     string `json:"plugin"`        // its name: bench-plugin-NAME
	PluginFile string `json:"plugin_file"`   // the executable, relative to runs/N/plugin
	PluginSHA  string `json:"plugin_sha256"` // the executable's SHA-256
	// Files are every file of the submission (relative path -> SHA-256).
	Files     map[string]string `json:"files"`
	Submitted string            `json:"submitted"`
	Bench     BenchID           `json:"bench"`
	// SeedCommitment is round.json's: the seed every scenario ran with.
	SeedCommitment string `json:"seed_commitment"`
	Sandbox        string `json:"sandbox_requested"`
	Audit          int    `json:"audit_requested"`
	// Conform is the conformance check run before the scenarios
	// (bench conform --quick), when the board asks for one.
	Conform   *ConformRun   `json:"conform,omitempty"`
	Scenarios []ScenarioRun `json:"scenarios"`
	Outcome   string        `json:"outcome"`          // ok or failed
	Reason    string        `json:"reason,omitempty"` // why it failed
}

// ConformRun is the outcome of bench conform --quick on a submission,
// under the strict sandbox, with the seed it drew (which replays it).
type ConformRun struct {
	Seed    string `json:"seed"`
	OK      bool   `json:"ok"`
	Summary string `json:"summary"` // its last line: the counts, or what failed
}

// BenchID names the bench that ran a submission.
type BenchID struct {
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of its executable
}

// ScenarioRun is a submission's run of one scenario of the suite.
type ScenarioRun struct {
	Name           string `json:"name"`
	SuiteSHA256    string `json:"suite_sha256"`    // suite/NAME.yaml
	ScenarioSHA256 string `json:"scenario_sha256"` // runs/N/scenarios/NAME.yaml, which ran
	ResultsSHA256  string `json:"results_sha256,omitempty"`
	// Sandbox is the level the results file records the plugin ran under.
	Sandbox    string         `json:"sandbox,omitempty"`
	Audit      *results.Audit `json:"audit,omitempty"`
	Status     string         `json:"status"` // ok or failed
	Error      string         `json:"error,omitempty"`
	MeanRegret *float64       `json:"mean_regret,omitempty"` // the mean final regret
}

// SubmitOptions are how a submission runs.
type SubmitOptions struct {
	Bench     string // the bench executable to run
	Submitter string
	Stderr    io.Writer // bench's progress lines
}

// Submit runs the submission at path (a bench-plugin-NAME executable, or
// a directory holding one and the files it needs) on the board's whole
// suite, records the run as a signed attestation in the log, and returns
// its predicate. A run that fails (a plugin that does not start, crashes,
// or fails the audit) is recorded as failed with its reason; Submit's
// error is for what kept it from recording anything.
//
// It is Queue, RunJob and Collect in one, under the board's lock: the
// same steps a cluster runs as separate jobs, so that a row is the same
// whichever way it ran. It refuses while queued submissions are not
// collected: their log records come first.
func (b *Board) Submit(ctx context.Context, path string, o SubmitOptions) (*RunPredicate, error) {
	if err := checkSubmitter(o.Submitter); err != nil {
		return nil, err
	}
	unlock, err := b.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, err := b.openRound()
	if err != nil {
		return nil, err
	}
	pend, err := b.queued()
	if err != nil {
		return nil, err
	}
	if len(pend) > 0 {
		return nil, fmt.Errorf("board %s: %d queued submissions (%s) are not collected yet, and their log records come first: run their jobs and 'bench board collect', or queue this one too ('bench board queue')", b.Dir, len(pend), numbers(pend))
	}
	q, err := b.enqueue(r, path, o.Submitter)
	if err != nil {
		return nil, err
	}
	p, err := b.RunJob(ctx, q.Submission, o)
	if err != nil {
		b.dequeue(q.Submission)
		return nil, err
	}
	if _, err := b.collect(); err != nil {
		return nil, err
	}
	return p, nil
}

func checkSubmitter(s string) error {
	if s == "" || strings.ContainsAny(s, "\n\r\t") {
		return errors.New("board submit: --submitter names no one")
	}
	return nil
}

// Subjects are the files a run's statement is about: the submission's
// files, the scenarios that ran and their results files.
func Subjects(p *RunPredicate) []attest.Subject {
	var out []attest.Subject
	names := make([]string, 0, len(p.Files))
	for f := range p.Files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		out = append(out, attest.Subject{Name: "plugin/" + f, SHA256: p.Files[f]})
	}
	for _, s := range p.Scenarios {
		out = append(out, attest.Subject{Name: "scenarios/" + s.Name + ".yaml", SHA256: s.ScenarioSHA256})
		if s.ResultsSHA256 != "" {
			out = append(out, attest.Subject{Name: "results/" + s.Name + ".json", SHA256: s.ResultsSHA256})
		}
	}
	return out
}

// LimitError refuses a submitter over its limit.
type LimitError struct {
	Submitter string
	Limit     int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("board submit: submitter %q has made its %d submissions of this round: refused", e.Submitter, e.Limit)
}

// runScenario runs one scenario of the suite for submission p, whose
// plugin is in pluginDir, with bench in a subprocess, writing the
// scenario it ran to outDir/scenarios and its results file to
// outDir/results, and reads what the results file records.
func (b *Board) runScenario(ctx context.Context, o SubmitOptions, sc SuiteScenario, pluginDir, outDir, seedFile string, p *RunPredicate) (*ScenarioRun, error) {
	run := &ScenarioRun{Name: sc.Name, SuiteSHA256: sc.SHA256}
	suiteData, err := os.ReadFile(b.Path(sc.File))
	if err != nil {
		return nil, fmt.Errorf("board submit: %w", err)
	}
	if got := sum(suiteData); got != sc.SHA256 {
		return nil, fmt.Errorf("board submit: %s: SHA-256 %s, board.json says %s: the suite was changed", sc.File, got, sc.SHA256)
	}
	data, err := SubmissionScenario(suiteData, p.Plugin, b.Config.Runs, b.Config.Horizon)
	if err != nil {
		return nil, fmt.Errorf("board submit: %s: %w", sc.File, err)
	}
	scPath := filepath.Join(outDir, "scenarios", sc.Name+".yaml")
	for _, d := range []string{"scenarios", "results"} {
		if err := os.MkdirAll(filepath.Join(outDir, d), 0o755); err != nil {
			return nil, fmt.Errorf("board submit: %w", err)
		}
	}
	if err := os.WriteFile(scPath, data, 0o644); err != nil {
		return nil, fmt.Errorf("board submit: %w", err)
	}
	run.ScenarioSHA256 = sum(data)
	out := filepath.Join(outDir, "results", sc.Name+".json")
	stderr, err := RunBench(ctx, o.Bench, pluginDir, p.PluginFile, scPath, seedFile, b.Config.Audit, out)
	if o.Stderr != nil && len(stderr) > 0 {
		o.Stderr.Write(stderr)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("board submit: %w", ctx.Err())
	}
	f, rerr := results.ReadFile(out)
	if rerr != nil {
		run.Status = results.StatusFailed
		run.Error = "no results: " + lastLine(stderr, err)
		return run, nil
	}
	if run.ResultsSHA256, err = sumFile(out); err != nil {
		return nil, fmt.Errorf("board submit: %w", err)
	}
	pol := f.Policy(p.Plugin)
	if pol == nil {
		run.Status, run.Error = results.StatusFailed, "the results file has no policy "+p.Plugin
		return run, nil
	}
	run.Sandbox, run.Audit, run.Status, run.Error = pol.Sandbox, pol.Audit, pol.Status, pol.Error
	if run.Status == results.StatusOK && run.Sandbox != "strict" {
		run.Status, run.Error = results.StatusFailed, fmt.Sprintf("ran under sandbox %q, not strict", run.Sandbox)
	}
	if run.Status == results.StatusOK && (run.Audit == nil || !run.Audit.OK) {
		run.Status, run.Error = results.StatusFailed, "not audited"
	}
	if run.Status == results.StatusOK && b.Config.Public == 0 { // else the log, public, would show the private part's score
		if m := meanFinal(pol); m != nil {
			run.MeanRegret = m
		}
	}
	if run.Status != results.StatusOK && run.Error == "" {
		run.Error = lastLine(stderr, err)
	}
	return run, nil
}

// relPaths makes the organiser's paths to submission n's directories in
// msg (its runs/N, and the job's working directory, whose scenarios/
// become runs/N/scenarios) the board's runs/N: they are not the row's
// business, and a row must not depend on where its job ran.
func relPaths(msg string, n int, dirs ...string) string {
	rel := filepath.Join("runs", strconv.Itoa(n))
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			msg = strings.ReplaceAll(msg, abs, rel)
		}
		msg = strings.ReplaceAll(msg, d, rel)
	}
	return msg
}

// RunConform runs bench conform --quick on the plugin in pluginDir under
// the strict sandbox, with seed (a fresh one when ""), and returns its
// outcome. Its error is for a conform that could not run at all.
func RunConform(ctx context.Context, bench, pluginDir, pluginFile, seed string) (*ConformRun, error) {
	if seed == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("board: conform seed: %w", err)
		}
		seed = "0x" + hex.EncodeToString(b[:])
	}
	args := []string{"conform", "--quick", "--sandbox", "strict", "--start-timeout", StartTimeout, "--seed", seed}
	if hasOtherFiles(pluginDir) {
		args = append(args, "--sandbox-read", pluginDir)
	}
	abs, err := filepath.Abs(filepath.Join(pluginDir, pluginFile))
	if err != nil {
		return nil, fmt.Errorf("board: %w", err)
	}
	cmd := exec.CommandContext(ctx, bench, append(args, abs)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("board: conform: %w", ctx.Err())
	}
	c := &ConformRun{Seed: seed, OK: err == nil, Summary: lastLine(out.Bytes(), err)}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("board: conform: %w", err)
	}
	return c, nil
}

// StartTimeout is the time a submission's plugin has to start (bench run
// --start-timeout): generous, for an interpreter that imports much under
// a loaded machine; it decides nothing of the results.
const StartTimeout = "2m"

// RunBench runs bench on the scenario file scPath with the plugin in
// pluginDir, the seed in seedFile, the strict sandbox and an audit of
// audit replications, writing its results to out. It returns bench's
// stderr and its exit error (a failed policy exits 3 and still writes
// its results).
func RunBench(ctx context.Context, bench, pluginDir, pluginFile, scPath, seedFile string, audit int, out string) ([]byte, error) {
	args := []string{"run", "--scenario", scPath, "--plugin-dir", pluginDir,
		"--seed-file", seedFile, "--sandbox", "strict", "--audit", strconv.Itoa(audit),
		"--out", out, "-q", "--start-timeout", StartTimeout}
	if filepath.Dir(pluginFile) != "." || hasOtherFiles(pluginDir) {
		// A directory submission: its plugin reads its own files.
		args = append(args, "--sandbox-read", pluginDir)
	}
	cmd := exec.CommandContext(ctx, bench, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	err := cmd.Run()
	return stderr.Bytes(), err
}

func hasOtherFiles(dir string) bool {
	ents, _ := os.ReadDir(dir)
	return len(ents) > 1
}

// SubmissionScenario rewrites a suite scenario so that the submission's
// plugin is its one policy (labelled by the plugin's name), with the
// board's replications and horizon when set.
func SubmissionScenario(suite []byte, plugin string, runs, horizon int) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(suite, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a YAML mapping")
	}
	m := doc.Content[0]
	set := func(key string, v *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content[i+1] = v
				return
			}
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	}
	scalar := func(s, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s} }
	pol := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
		scalar("plugin", "!!str"), scalar(plugin, "!!str"), scalar("label", "!!str"), scalar(plugin, "!!str"),
	}}
	set("policies", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{pol}})
	if runs > 0 {
		set("runs", scalar(strconv.Itoa(runs), "!!int"))
	}
	if horizon > 0 {
		set("horizon", scalar(strconv.Itoa(horizon), "!!int"))
	}
	return yaml.Marshal(&doc)
}

// copySubmission copies the submission at src into dst: a
// bench-plugin-NAME executable, or a directory whose top level holds
// exactly one. It returns the executable's path relative to dst and the
// plugin's name.
func copySubmission(src, dst string) (file, name string, err error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", "", err
	}
	if fi.Mode().IsRegular() {
		base := filepath.Base(src)
		if name, err = pluginName(base, fi); err != nil {
			return "", "", err
		}
		return base, name, copyFile(src, filepath.Join(dst, base), 0o755)
	}
	if !fi.IsDir() {
		return "", "", errors.New("neither a plugin executable nor a directory")
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return "", "", err
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "bench-plugin-") {
			continue
		}
		info, err := os.Stat(filepath.Join(src, e.Name()))
		if err != nil {
			return "", "", err
		}
		n, err := pluginName(e.Name(), info)
		if err != nil {
			return "", "", err
		}
		if name != "" {
			return "", "", fmt.Errorf("two plugins, %s and %s: a submission is one", file, e.Name())
		}
		file, name = e.Name(), n
	}
	if name == "" {
		return "", "", errors.New("the directory holds no bench-plugin-NAME executable")
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.Name() == "__pycache__" && d.IsDir() {
			return filepath.SkipDir
		}
		info, err := os.Stat(p) // follows links: what the plugin would read
		if err != nil {
			return err
		}
		switch {
		case info.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case info.Mode().IsRegular():
			return copyFile(p, filepath.Join(dst, rel), info.Mode().Perm()&0o755)
		default:
			return fmt.Errorf("%s: not a regular file", rel)
		}
	})
	return file, name, err
}

func pluginName(base string, fi fs.FileInfo) (string, error) {
	name, ok := strings.CutPrefix(base, "bench-plugin-")
	if !ok || !nameRE.MatchString(name) {
		return "", fmt.Errorf("%s: a plugin executable is named bench-plugin-NAME", base)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s: not an executable file", base)
	}
	return name, nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, perm|0o400)
}

// digests returns the SHA-256 of every regular file under dir.
func digests(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s, err := sumFile(p)
		out[filepath.ToSlash(rel)] = s
		return err
	})
	return out, err
}

// benchID names the bench at path, which is the running bench: the
// version it records in results files, and its executable's SHA-256.
func benchID(path string) (BenchID, error) {
	s, err := sumFile(path)
	if err != nil {
		return BenchID{}, fmt.Errorf("board: bench %s: %w", path, err)
	}
	return BenchID{Version: results.HostVersion(), SHA256: s}, nil
}

func meanFinal(p *results.Policy) *float64 {
	if len(p.Regret.Mean) == 0 {
		return nil
	}
	m := p.Regret.Mean[len(p.Regret.Mean)-1]
	return &m
}

// lastLine is the last non-empty line of bench's stderr, or err.
func lastLine(stderr []byte, err error) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return strings.TrimPrefix(l, "bench: ")
	}
	if err != nil {
		return err.Error()
	}
	return "bench said nothing"
}
