package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	sumtlog "golang.org/x/mod/sumdb/tlog"

	"github.com/regretbench/regretbench/host/board/attest"
	"github.com/regretbench/regretbench/host/board/tlog"
	"github.com/regretbench/regretbench/host/results"
)

// Row is one recorded run: its place in the log and its predicate.
type Row struct {
	Index int64  // in the log
	Entry string // the attestation's file
	Run   *RunPredicate
}

// Rows returns the board's recorded runs, in log order, each with a
// signature that verifies (else an error naming the entry).
func (b *Board) Rows() ([]Row, error) {
	l := b.Log()
	n, err := l.Size()
	if err != nil {
		return nil, err
	}
	var rows []Row
	for i := int64(0); i < n; i++ {
		data, err := l.Entry(i)
		if err != nil {
			return nil, err
		}
		st, err := attest.Verify(b.Pub, data)
		if err != nil {
			return nil, fmt.Errorf("board %s: log record %d: %w", b.Dir, i, err)
		}
		if st.PredicateType != PredicateRun {
			continue
		}
		var p RunPredicate
		if err := json.Unmarshal(st.Predicate, &p); err != nil {
			return nil, fmt.Errorf("board %s: log record %d: predicate: %w", b.Dir, i, err)
		}
		rows = append(rows, Row{Index: i, Entry: l.EntryPath(i), Run: &p})
	}
	return rows, nil
}

// Problem is one thing that does not match: What names the piece (the
// signature, the log, a checkpoint, the seed, a plugin file, a results
// file, the sandbox, the rerun), Detail says how.
type Problem struct {
	What   string
	Detail string
}

func (p Problem) String() string { return p.What + ": " + p.Detail }

// Report is the outcome of verifying one log record.
type Report struct {
	Index    int64
	Run      *RunPredicate // nil for a record that is not a run, or unreadable
	Kind     string        // the predicate type, when the signature verified
	Problems []Problem
	Notes    []string // what was not checked, and why; warnings
}

// OK reports whether nothing failed.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) fail(what, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{what, fmt.Sprintf(format, args...)})
}

// VerifyOptions are what Verify checks beyond the board's own files.
type VerifyOptions struct {
	// Checkpoint is a signed checkpoint the verifier saw before (a file):
	// the log must extend it.
	Checkpoint string
	// Key is the board's public key as the verifier knows it (note's
	// verifier key form), obtained apart from the board: board.json's
	// must be it. Empty: board.json's is trusted.
	Key string
	// Rerun runs each scenario again with the revealed seed, with Bench,
	// and compares the results bit for bit.
	Rerun  bool
	Bench  string
	Stderr io.Writer
}

// Verify checks log record index of the board: the log's checkpoints
// (signed by the board's key, each consistent with the last), the
// record's inclusion in the last one, its DSSE signature, and for a run
// the files it names (plugin, scenarios, results), the sandbox and audit
// its results record, and the seed; with o.Rerun, that running it again
// gives the same results.
func (b *Board) Verify(ctx context.Context, index int64, o VerifyOptions) *Report {
	r := &Report{Index: index}
	if o.Key != "" && strings.TrimSpace(o.Key) != b.Config.Key {
		r.fail("key", "board.json's key %s is not the board's key %s", b.Config.Key, strings.TrimSpace(o.Key))
	}
	data, err := b.Log().Entry(index)
	if err != nil {
		r.fail("log", "%v", err)
		return r
	}
	b.verifyLog(r, index, data, o.Checkpoint)
	st, err := attest.Verify(b.Pub, data)
	if err != nil {
		r.fail("signature", "%v", err)
		return r
	}
	r.Kind = st.PredicateType
	round, err := b.Round()
	if err != nil || round == nil {
		r.fail("seed", "round.json: %v", orNone(err, "no round"))
		return r
	}
	switch st.PredicateType {
	case PredicateOpen:
		var p OpenPredicate
		if err := json.Unmarshal(st.Predicate, &p); err != nil {
			r.fail("attestation", "predicate: %v", err)
			return r
		}
		if p.Commitment != round.Commitment {
			r.fail("seed", "the open attestation commits to %s, round.json to %s", p.Commitment, round.Commitment)
		}
		b.verifySeed(r, round)
		return r
	case PredicateRun:
	default:
		r.fail("attestation", "predicate type %q is not a board's", st.PredicateType)
		return r
	}
	var p RunPredicate
	if err := json.Unmarshal(st.Predicate, &p); err != nil {
		r.fail("attestation", "predicate: %v", err)
		return r
	}
	r.Run = &p
	if p.LogIndex != index {
		r.fail("log order", "the attestation says it is log record %d; it is record %d", p.LogIndex, index)
	}
	if p.Board != b.Config.Name {
		r.fail("attestation", "it is of board %q, not %q", p.Board, b.Config.Name)
	}
	if !reflect.DeepEqual(subjectMap(Subjects(&p)), st.Subjects) {
		r.fail("attestation", "its subjects are not the files its predicate names")
	}
	if p.SeedCommitment != round.Commitment {
		r.fail("seed", "the run ran with the seed committed to as %s; round.json's commitment is %s", p.SeedCommitment, round.Commitment)
	}
	if round.Index >= index {
		r.fail("log order", "the run (record %d) is logged before the round's commitment (record %d)", index, round.Index)
	}
	b.verifySeed(r, round)
	runDir := b.Path("runs", strconv.Itoa(p.Submission))
	b.verifyFiles(r, "plugin", filepath.Join(runDir, "plugin"), p.Files)
	suite := map[string]string{}
	for _, s := range b.Config.Suite {
		suite[s.Name] = s.SHA256
	}
	for _, sc := range p.Scenarios {
		if suite[sc.Name] != sc.SuiteSHA256 {
			r.fail("suite", "scenario %s: the run's suite file has SHA-256 %s, board.json's %s", sc.Name, sc.SuiteSHA256, suite[sc.Name])
		}
		scPath := filepath.Join(runDir, "scenarios", sc.Name+".yaml")
		if got, err := sumFile(scPath); err != nil || got != sc.ScenarioSHA256 {
			r.fail("scenario "+sc.Name, "%s: SHA-256 %s, attested %s", scPath, orNone(err, got), sc.ScenarioSHA256)
		}
		if sc.ResultsSHA256 == "" {
			continue
		}
		resPath := filepath.Join(runDir, "results", sc.Name+".json")
		if round.Revealed == "" {
			r.Notes = append(r.Notes, fmt.Sprintf("results of %s: not published before the reveal", sc.Name))
			continue
		}
		got, err := sumFile(resPath)
		if err != nil || got != sc.ResultsSHA256 {
			r.fail("results "+sc.Name, "%s: SHA-256 %s, attested %s", resPath, orNone(err, got), sc.ResultsSHA256)
		}
		if err != nil {
			continue
		}
		f, err := results.ReadFile(resPath)
		if err != nil {
			r.fail("results "+sc.Name, "%v", err)
			continue
		}
		b.verifyResults(r, &p, sc, f, round)
		if o.Rerun {
			b.rerun(ctx, r, &p, sc, runDir, f, round, o)
		}
	}
	if o.Rerun && p.Conform != nil {
		c, err := RunConform(ctx, o.Bench, filepath.Join(runDir, "plugin"), p.PluginFile, p.Conform.Seed)
		if err != nil {
			r.fail("rerun", "conform: %v", err)
		} else if c.OK != p.Conform.OK {
			r.fail("rerun", "conform with seed %s: ok %v, recorded ok %v (%s)", p.Conform.Seed, c.OK, p.Conform.OK, c.Summary)
		}
	}
	if o.Rerun && round.Revealed == "" {
		r.Notes = append(r.Notes, "rerun: the seed is not revealed yet")
	}
	return r
}

func subjectMap(ss []attest.Subject) map[string]string {
	m := map[string]string{}
	for _, s := range ss {
		m[s.Name] = s.SHA256
	}
	return m
}

func orNone(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// verifyLog checks the log's checkpoints and record index's inclusion.
func (b *Board) verifyLog(r *Report, index int64, data []byte, held string) {
	l := b.Log()
	latest, err := l.Latest(b.Pub.Verifier)
	if err != nil {
		r.fail("checkpoint", "the last checkpoint: %v", err)
		return
	}
	leaves, err := l.Leaves()
	if err != nil {
		r.fail("log", "%v", err)
		return
	}
	if int64(len(leaves)) < latest.Tree.N {
		r.fail("log", "the log holds %d records, its last checkpoint %d: records were removed", len(leaves), latest.Tree.N)
		return
	}
	if int64(len(leaves)) > latest.Tree.N {
		r.fail("checkpoint", "the log holds %d records, its last checkpoint only %d: the checkpoint is not the last", len(leaves), latest.Tree.N)
	}
	hr := tlog.ReaderOf(leaves)
	root, err := sumtlog.TreeHash(latest.Tree.N, hr)
	if err != nil {
		r.fail("log", "%v", err)
		return
	}
	if root != latest.Tree.Hash {
		r.fail("log", "the log's records give the root %s for %d records, its signed checkpoint %s: a record was changed, added or removed", root, latest.Tree.N, latest.Tree.Hash)
		return
	}
	// Every checkpoint the board published, and the one the verifier
	// holds, must be a prefix of the last.
	sizes, err := l.Checkpoints()
	if err != nil {
		r.fail("checkpoint", "%v", err)
	}
	for _, n := range sizes {
		c, err := l.Stored(n, b.Pub.Verifier)
		if err != nil {
			r.fail("checkpoint", "%v", err)
			continue
		}
		consistent(r, c, latest, hr, fmt.Sprintf("the checkpoint of %d records", n))
	}
	if held != "" {
		msg, err := os.ReadFile(held)
		if err == nil {
			var c *tlog.Checkpoint
			if c, err = tlog.OpenCheckpoint(msg, b.Pub.Verifier, b.Config.Name); err == nil {
				consistent(r, c, latest, hr, "the checkpoint "+held)
			}
		}
		if err != nil {
			r.fail("checkpoint", "--checkpoint %s: %v", held, err)
		}
	}
	h := sumtlog.RecordHash(data)
	if index >= latest.Tree.N {
		r.fail("log", "record %d is not in the last checkpoint (%d records)", index, latest.Tree.N)
		return
	}
	if h != leaves[index] {
		for j, lh := range leaves {
			if lh == h {
				r.fail("log order", "entry file %d holds the record logged at %d", index, j)
				return
			}
		}
		r.fail("log", "entry file %d is not the record logged at %d (its hash %s, logged %s)", index, index, h, leaves[index])
		return
	}
	proof, err := sumtlog.ProveRecord(latest.Tree.N, index, hr)
	if err == nil {
		err = sumtlog.CheckRecord(proof, latest.Tree.N, latest.Tree.Hash, index, h)
	}
	if err != nil {
		r.fail("log", "record %d's inclusion in the last checkpoint: %v", index, err)
	}
}

// consistent checks that the tree of c is a prefix of the latest's.
func consistent(r *Report, c, latest *tlog.Checkpoint, hr sumtlog.HashReader, what string) {
	if c.Tree.N > latest.Tree.N {
		r.fail("checkpoint", "%s has %d records, the log's last checkpoint %d: records were removed", what, c.Tree.N, latest.Tree.N)
		return
	}
	proof, err := sumtlog.ProveTree(latest.Tree.N, c.Tree.N, hr)
	if err == nil {
		err = sumtlog.CheckTree(proof, latest.Tree.N, latest.Tree.Hash, c.Tree.N, c.Tree.Hash)
	}
	if err != nil {
		r.fail("checkpoint", "%s is not consistent with the last checkpoint: the log was rewritten (%v)", what, err)
	}
}

// verifySeed checks a revealed seed against the commitment.
func (b *Board) verifySeed(r *Report, round *Round) {
	if round.Revealed == "" {
		return
	}
	if got := Commit(round.Seed); got != round.Commitment {
		r.fail("seed", "the revealed seed's SHA-256 is %s, the commitment %s", got, round.Commitment)
	}
}

// verifyFiles checks the files under dir against want (relative path ->
// SHA-256).
func (b *Board) verifyFiles(r *Report, what, dir string, want map[string]string) {
	got, err := digests(dir)
	if err != nil {
		r.fail(what, "%v", err)
		return
	}
	var names []string
	for f := range want {
		names = append(names, f)
	}
	for f := range got {
		if _, ok := want[f]; !ok {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	for _, f := range names {
		switch g, w := got[f], want[f]; {
		case w == "":
			r.fail(what, "%s: a file the attestation does not name", f)
		case g == "":
			r.fail(what, "%s: missing", f)
		case g != w:
			r.fail(what, "%s: SHA-256 %s, attested %s", f, g, w)
		}
	}
}

// verifyResults checks what a results file records against the
// attestation: the seed, the sandbox level, the audit.
func (b *Board) verifyResults(r *Report, p *RunPredicate, sc ScenarioRun, f *results.File, round *Round) {
	if s := f.Scenario.Seed.String(); s != round.Seed {
		r.fail("seed", "results of %s: ran with seed %s, the revealed seed is %s", sc.Name, f.Scenario.Seed.Abbrev(), abbrev(round.Seed))
	}
	pol := f.Policy(p.Plugin)
	if pol == nil {
		r.fail("results "+sc.Name, "no policy %s", p.Plugin)
		return
	}
	if pol.Sandbox != sc.Sandbox {
		r.fail("sandbox", "results of %s: the plugin ran under %q, attested %q", sc.Name, pol.Sandbox, sc.Sandbox)
	}
	if sc.Status == results.StatusOK && pol.Sandbox != "strict" {
		r.fail("sandbox", "results of %s: ranked though it ran under %q, not strict", sc.Name, pol.Sandbox)
	}
	if (pol.Audit == nil) != (sc.Audit == nil) || (pol.Audit != nil && pol.Audit.OK != sc.Audit.OK) {
		r.fail("audit", "results of %s: audit %s, attested %s", sc.Name, auditText(pol.Audit), auditText(sc.Audit))
	}
	if pol.Status != sc.Status && !(pol.Status == results.StatusOK && sc.Status == results.StatusFailed) {
		r.fail("results "+sc.Name, "status %s, attested %s", pol.Status, sc.Status)
	}
	if sc.MeanRegret != nil {
		if m := meanFinal(pol); m == nil || math.Float64bits(*m) != math.Float64bits(*sc.MeanRegret) {
			r.fail("results "+sc.Name, "mean final regret %v, attested %v", deref(m), *sc.MeanRegret)
		}
	}
}

func deref(m *float64) any {
	if m == nil {
		return "none"
	}
	return *m
}

func abbrev(s string) string {
	if len(s) > 10 {
		return s[:10] + "…"
	}
	return s
}

func auditText(a *results.Audit) string {
	switch {
	case a == nil:
		return "none"
	case a.OK:
		return "ok"
	}
	return "failed"
}

// rerun runs scenario sc of p again with the revealed seed and compares
// the results with the recorded file f.
func (b *Board) rerun(ctx context.Context, r *Report, p *RunPredicate, sc ScenarioRun, runDir string, f *results.File, round *Round, o VerifyOptions) {
	if o.Bench == "" {
		r.fail("rerun", "no bench to run")
		return
	}
	if id, err := benchID(o.Bench); err == nil && id.SHA256 != p.Bench.SHA256 {
		r.Notes = append(r.Notes, fmt.Sprintf("rerun: this bench (SHA-256 %.12s) is not the one that ran the row (%.12s, %s): reward streams belong to a build", id.SHA256, p.Bench.SHA256, p.Bench.Version))
	}
	if Commit(round.Seed) != p.SeedCommitment {
		r.fail("rerun", "the revealed seed is not the one the run committed to: not rerun")
		return
	}
	tmp, err := os.MkdirTemp("", "bench-verify-")
	if err != nil {
		r.fail("rerun", "%v", err)
		return
	}
	defer os.RemoveAll(tmp)
	seedFile := filepath.Join(tmp, "seed")
	if err := os.WriteFile(seedFile, []byte(round.Seed+"\n"), 0o600); err != nil {
		r.fail("rerun", "%v", err)
		return
	}
	out := filepath.Join(tmp, sc.Name+".json")
	stderr, err := RunBench(ctx, o.Bench, filepath.Join(runDir, "plugin"), p.PluginFile,
		filepath.Join(runDir, "scenarios", sc.Name+".yaml"), seedFile, p.Audit, out)
	if o.Stderr != nil {
		o.Stderr.Write(stderr)
	}
	g, rerr := results.ReadFile(out)
	if rerr != nil {
		r.fail("rerun", "scenario %s: no results: %s", sc.Name, lastLine(stderr, err))
		return
	}
	for _, d := range Differences(f, g) {
		r.fail("rerun", "scenario %s: %s", sc.Name, d)
	}
}

// Differences lists how two results files of one run differ in what a
// rerun must reproduce bit for bit: the scenario, and each policy's
// status, checkpoints, metrics, final values, diagnostics and audit
// outcome (not its timing, the host, the date, nor which replications
// the audit drew).
func Differences(a, b *results.File) []string {
	var out []string
	if d := a.Scenario.Diff(b.Scenario); len(d) > 0 {
		for _, x := range d {
			out = append(out, fmt.Sprintf("scenario field %s: recorded %s, rerun %s", x.Field, x.A, x.B))
		}
	}
	if len(a.Policies) != len(b.Policies) {
		return append(out, fmt.Sprintf("%d policies recorded, %d rerun", len(a.Policies), len(b.Policies)))
	}
	for i, pa := range a.Policies {
		pb := b.Policies[i]
		add := func(field string, x, y any) {
			out = append(out, fmt.Sprintf("policy %s: %s: recorded %v, rerun %v", pa.Label, field, short(x), short(y)))
		}
		if pa.Label != pb.Label {
			add("label", pa.Label, pb.Label)
			continue
		}
		if pa.Status != pb.Status {
			add("status", pa.Status, pb.Status)
		}
		if !sameBits(pa.Checkpoints, pb.Checkpoints) {
			add("checkpoints", pa.Checkpoints, pb.Checkpoints)
		}
		for _, m := range []struct {
			name string
			x, y results.Series
		}{{"regret", pa.Regret, pb.Regret}, {"underestimation", pa.Under, pb.Under}, {"regret_under", pa.RegretUnder, pb.RegretUnder}, {"regret_not_under", pa.RegretNot, pb.RegretNot}} {
			if !sameBits(m.x.Mean, m.y.Mean) || !sameBits(m.x.SE, m.y.SE) {
				add(m.name, m.x.Mean, m.y.Mean)
			}
		}
		keys := map[string]bool{}
		for k := range pa.Final {
			keys[k] = true
		}
		for k := range pb.Final {
			keys[k] = true
		}
		for k := range keys {
			if !sameBits(pa.Final[k], pb.Final[k]) {
				add("final."+k, pa.Final[k], pb.Final[k])
			}
		}
		da, _ := json.Marshal(pa.Diagnostics)
		db, _ := json.Marshal(pb.Diagnostics)
		if string(da) != string(db) {
			add("diagnostics", "", "(differ)")
		}
		if auditText(pa.Audit) != auditText(pb.Audit) {
			add("audit", auditText(pa.Audit), auditText(pb.Audit))
		}
	}
	sort.Strings(out)
	return out
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// sameBits compares two slices bit for bit (NaN equals NaN, 0 is not -0).
func sameBits[T float64 | int](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		if math.Float64bits(x) != math.Float64bits(y) {
			return false
		}
	}
	return true
}

// ParseRow resolves a ROW argument of bench verify: a board directory
// (every record), an entry file of a board's log (DIR/log/entries/N.json),
// or DIR:N (record N of the board in DIR).
func ParseRow(arg string) (dir string, index int64, all bool, err error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return arg, 0, true, nil
	}
	if i := strings.LastIndexByte(arg, ':'); i > 0 {
		if n, err := strconv.ParseInt(arg[i+1:], 10, 64); err == nil && n >= 0 {
			return arg[:i], n, false, nil
		}
	}
	base := filepath.Base(arg)
	n, perr := strconv.ParseInt(strings.TrimSuffix(base, ".json"), 10, 64)
	entries := filepath.Dir(arg)
	if perr != nil || filepath.Base(entries) != "entries" || filepath.Base(filepath.Dir(entries)) != "log" {
		return "", 0, false, errors.New("not a board directory, a log entry (DIR/log/entries/N.json) or DIR:N")
	}
	return filepath.Dir(filepath.Dir(entries)), n, false, nil
}
