package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/board/attest"
	"github.com/regretbench/regretbench/host/results"
)

// A board's submissions are independent jobs, which a cluster may run at
// once (a Slurm job array, a Kubernetes Indexed Job, a CI matrix):
//
//   - Queue (bench board queue) takes a submission as Submit does (the
//     limit, the copy of its files into runs/N/plugin, the submission
//     time) and fixes its number N and its log record, the next free
//     ones, without running it: private/jobs/queue/N.json.
//   - RunJob (bench board submit --job N) runs queued submission N as
//     Submit would, in a working directory of its own
//     (private/jobs/work/N.*), signs its attestation, and stages the
//     outcome by renaming that directory to private/jobs/staged/N in one
//     step: a job never writes where another job or the log does, needs
//     no lock, and of two attempts at N the first to finish wins.
//   - Collect (bench board collect) appends the staged attestations to
//     the log in submission order, each after checking its signature and
//     every file it names, and moves their scenarios and results files to
//     where Submit puts them. The log is the same whatever order the jobs
//     finished in; it stops at the first submission not staged yet.
//
// A job is a whole submission, not a shard of one: the number of
// submissions is what grows, a submission's scenarios already run as
// separate bench processes, and its audit replays replications of the
// whole run, which a shard (bench run --shard) does not hold.

// queueDir holds the queued submissions; stagedDir their staged outcomes.
func (b *Board) queueDir() string  { return b.Path("private", "jobs", "queue") }
func (b *Board) stagedDir() string { return b.Path("private", "jobs", "staged") }
func (b *Board) workDir() string   { return b.Path("private", "jobs", "work") }

// Queue queues the submission at path, to be run by RunJob: it checks the
// submitter's limit (recorded and queued submissions count), copies the
// submission into runs/N/plugin and records its number, its log record
// and the time. It returns the run's predicate as far as it is known.
func (b *Board) Queue(path string, submitter string) (*RunPredicate, error) {
	if err := checkSubmitter(submitter); err != nil {
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
	return b.enqueue(r, path, submitter)
}

// enqueue is Queue with the lock held.
func (b *Board) enqueue(r *Round, path, submitter string) (*RunPredicate, error) {
	rows, err := b.Rows()
	if err != nil {
		return nil, err
	}
	pend, err := b.queued()
	if err != nil {
		return nil, err
	}
	count := 0
	for _, p := range append(runsOf(rows), pend...) {
		if p.Submitter == submitter {
			count++
		}
	}
	if count >= b.Config.Limit {
		return nil, &LimitError{Submitter: submitter, Limit: b.Config.Limit}
	}
	if _, err := b.key(); err != nil {
		return nil, err
	}
	if _, err := b.secret(); err != nil {
		return nil, err
	}
	size, err := b.Log().Size()
	if err != nil {
		return nil, err
	}
	n := len(rows) + len(pend)
	runDir := b.Path("runs", strconv.Itoa(n))
	if _, err := os.Stat(runDir); err == nil {
		return nil, fmt.Errorf("board %s: runs/%d exists but is in no attestation of the log nor in the queue: move it away", b.Dir, n)
	}
	p := &RunPredicate{
		Board: b.Config.Name, Submission: n, LogIndex: size + int64(len(pend)), Submitter: submitter, Submitted: now(),
		SeedCommitment: r.Commitment, Sandbox: "strict", Audit: b.Config.Audit, Outcome: OutcomeOK,
	}
	if p.PluginFile, p.Plugin, err = copySubmission(path, filepath.Join(runDir, "plugin")); err != nil {
		os.RemoveAll(runDir)
		return nil, fmt.Errorf("board submit %s: %w", path, err)
	}
	if p.Files, err = digests(filepath.Join(runDir, "plugin")); err != nil {
		os.RemoveAll(runDir)
		return nil, fmt.Errorf("board submit: %w", err)
	}
	p.PluginSHA = p.Files[p.PluginFile]
	if err := os.MkdirAll(b.queueDir(), 0o700); err != nil {
		return nil, fmt.Errorf("board submit: %w", err)
	}
	if err := writeJSON(b.queuePath(n), p); err != nil {
		os.RemoveAll(runDir)
		return nil, fmt.Errorf("board submit: %w", err)
	}
	return p, nil
}

func (b *Board) queuePath(n int) string {
	return filepath.Join(b.queueDir(), strconv.Itoa(n)+".json")
}

// dequeue drops queued submission n and its files (a direct Submit whose
// run could not be recorded leaves nothing behind).
func (b *Board) dequeue(n int) {
	os.Remove(b.queuePath(n))
	os.RemoveAll(b.Path("runs", strconv.Itoa(n)))
	os.RemoveAll(filepath.Join(b.stagedDir(), strconv.Itoa(n)))
}

func runsOf(rows []Row) []*RunPredicate {
	out := make([]*RunPredicate, len(rows))
	for i, r := range rows {
		out[i] = r.Run
	}
	return out
}

// queued returns the queued submissions not yet collected, in order.
func (b *Board) queued() ([]*RunPredicate, error) {
	ents, err := os.ReadDir(b.queueDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("board %s: %w", b.Dir, err)
	}
	var out []*RunPredicate
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if _, err := strconv.Atoi(name); !ok || err != nil {
			continue // writeJSON's temporary files
		}
		var p RunPredicate
		if err := readJSON(filepath.Join(b.queueDir(), e.Name()), &p); err != nil {
			return nil, fmt.Errorf("board %s: the queue: %w", b.Dir, err)
		}
		out = append(out, &p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Submission < out[j].Submission })
	return out, nil
}

func numbers(ps []*RunPredicate) string {
	var s []string
	for _, p := range ps {
		s = append(s, strconv.Itoa(p.Submission))
	}
	return strings.Join(s, ", ")
}

// Job is a queued submission and whether its outcome is staged.
type Job struct {
	Run    *RunPredicate
	Staged bool
}

// Jobs returns the queued submissions not yet collected, in order.
func (b *Board) Jobs() ([]Job, error) {
	pend, err := b.queued()
	if err != nil {
		return nil, err
	}
	var out []Job
	for _, p := range pend {
		_, err := os.Stat(filepath.Join(b.stagedDir(), strconv.Itoa(p.Submission), "attestation.json"))
		out = append(out, Job{Run: p, Staged: err == nil})
	}
	return out, nil
}

// ArraySpec is the Slurm --array of the jobs not staged: their
// submission numbers, consecutive ones as ranges ("1-3,5"); "" for none.
func ArraySpec(jobs []Job) string {
	var parts []string
	for i := 0; i < len(jobs); {
		if jobs[i].Staged {
			i++
			continue
		}
		j := i
		for j+1 < len(jobs) && !jobs[j+1].Staged && jobs[j+1].Run.Submission == jobs[j].Run.Submission+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(jobs[i].Run.Submission))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", jobs[i].Run.Submission, jobs[j].Run.Submission))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// StagedError says that a job's outcome was staged already: by an
// earlier attempt (a requeued array task), or this one's lost the race.
type StagedError struct{ Submission int }

func (e *StagedError) Error() string {
	return fmt.Sprintf("board submit --job %d: its outcome is staged already (an earlier attempt finished first); 'bench board collect' records it", e.Submission)
}

// RunJob runs queued submission n on the board's suite as Submit does,
// signs its attestation and stages the outcome in
// private/jobs/staged/N, for Collect. It takes no lock and writes only
// its own working directory, which it renames into place at the end:
// jobs of one board may run at once, on several machines sharing the
// board's directory. An outcome staged already is a *StagedError.
func (b *Board) RunJob(ctx context.Context, n int, o SubmitOptions) (*RunPredicate, error) {
	if _, err := b.openRound(); err != nil {
		return nil, err
	}
	var q RunPredicate
	if err := readJSON(b.queuePath(n), &q); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("board %s: submission %d is not queued (or was collected): 'bench board jobs' lists the queue", b.Dir, n)
		}
		return nil, fmt.Errorf("board %s: %w", b.Dir, err)
	}
	staged := filepath.Join(b.stagedDir(), strconv.Itoa(n))
	if _, err := os.Stat(staged); err == nil {
		return nil, &StagedError{Submission: n}
	}
	k, err := b.key()
	if err != nil {
		return nil, err
	}
	if _, err := b.secret(); err != nil {
		return nil, err
	}
	for _, d := range []string{b.workDir(), b.stagedDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("board submit: %w", err)
		}
	}
	work, err := os.MkdirTemp(b.workDir(), strconv.Itoa(n)+".")
	if err != nil {
		return nil, fmt.Errorf("board submit: %w", err)
	}
	defer os.RemoveAll(work)
	p := q
	runDir := b.Path("runs", strconv.Itoa(n))
	pluginDir := filepath.Join(runDir, "plugin")
	if p.Bench, err = benchID(o.Bench); err != nil {
		return nil, err
	}
	if b.Config.Conform {
		c, err := RunConform(ctx, o.Bench, pluginDir, p.PluginFile, "")
		if err != nil {
			return nil, err
		}
		p.Conform = c
		if !c.OK {
			p.Outcome, p.Reason = OutcomeFailed, "conform: "+relPaths(c.Summary, n, runDir, work)
		}
	}
	for _, sc := range b.Config.Suite {
		if p.Conform != nil && !p.Conform.OK {
			break // a plugin that does not conform is not run
		}
		run, err := b.runScenario(ctx, o, sc, pluginDir, work, b.Path("private", "seed"), &p)
		if err != nil {
			return nil, err
		}
		run.Error = relPaths(run.Error, n, runDir, work)
		p.Scenarios = append(p.Scenarios, *run)
		if run.Status != results.StatusOK && p.Outcome == OutcomeOK {
			p.Outcome, p.Reason = OutcomeFailed, fmt.Sprintf("scenario %s: %s", sc.Name, run.Error)
		}
	}
	env, err := attest.Sign(k, Subjects(&p), PredicateRun, &p)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "attestation.json"), env, 0o644); err != nil {
		return nil, fmt.Errorf("board submit: %w", err)
	}
	// The one step that stages the outcome: rename does not replace a
	// directory that exists, so the first attempt to finish wins.
	if err := os.Rename(work, staged); err != nil {
		if _, serr := os.Stat(staged); serr == nil {
			return nil, &StagedError{Submission: n}
		}
		return nil, fmt.Errorf("board submit: staging: %w", err)
	}
	return &p, nil
}

// Collect appends the staged outcomes of queued submissions to the log,
// in submission order (so the log does not depend on the order the jobs
// finished in), each after checking that its attestation is signed by
// the board's key, is the queued submission's (its number, log record,
// submitter, files and time), and that every file it names has its
// SHA-256, and what the results files record (seed, sandbox, audit,
// scores). It stops at the first submission not staged, and returns
// those collected and those still waiting.
func (b *Board) Collect() (collected, waiting []*RunPredicate, err error) {
	unlock, err := b.lock()
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	if _, err := b.openRound(); err != nil {
		return nil, nil, err
	}
	collected, err = b.collect()
	if err != nil {
		return collected, nil, err
	}
	waiting, err = b.queued()
	return collected, waiting, err
}

// CollectError is a staged outcome that does not check: nothing from it
// on is appended.
type CollectError struct {
	Submission int
	Problems   []Problem
}

func (e *CollectError) Error() string {
	var s []string
	for _, p := range e.Problems {
		s = append(s, p.String())
	}
	return fmt.Sprintf("board collect: the staged outcome of submission %d does not check, and is not logged (remove private/jobs/staged/%d and run its job again): %s", e.Submission, e.Submission, strings.Join(s, "; "))
}

// collect is Collect with the lock held.
func (b *Board) collect() ([]*RunPredicate, error) {
	k, err := b.key()
	if err != nil {
		return nil, err
	}
	round, err := b.Round()
	if err != nil {
		return nil, err
	}
	seedText, err := b.secret()
	if err != nil {
		return nil, err
	}
	withSeed := *round
	withSeed.Seed = seedText
	pend, err := b.queued()
	if err != nil {
		return nil, err
	}
	l := b.Log()
	var done []*RunPredicate
	for _, q := range pend {
		dir := filepath.Join(b.stagedDir(), strconv.Itoa(q.Submission))
		env, err := os.ReadFile(filepath.Join(dir, "attestation.json"))
		if errors.Is(err, os.ErrNotExist) {
			break // not staged yet: the ones after it wait too
		}
		if err != nil {
			return done, fmt.Errorf("board collect: %w", err)
		}
		size, err := l.Size()
		if err != nil {
			return done, err
		}
		switch {
		case size > q.LogIndex:
			// Appended by a collect that stopped before it moved the
			// files: finish it, if it is this record.
			if logged, err := l.Entry(q.LogIndex); err != nil || !bytes.Equal(logged, env) {
				return done, fmt.Errorf("board collect: submission %d was queued as log record %d, which holds another record", q.Submission, q.LogIndex)
			}
			if st, err := attest.Verify(b.Pub, env); err == nil {
				var p RunPredicate
				if json.Unmarshal(st.Predicate, &p) == nil {
					q = &p
				}
			}
		case size < q.LogIndex:
			return done, fmt.Errorf("board collect: submission %d was queued as log record %d, but the log has %d records", q.Submission, q.LogIndex, size)
		default:
			r := &Report{Index: q.LogIndex}
			p := b.checkStaged(r, q, env, dir, &withSeed)
			if !r.OK() {
				return done, &CollectError{Submission: q.Submission, Problems: r.Problems}
			}
			if _, err := l.Append(env, k.Signer); err != nil {
				return done, err
			}
			q = p
		}
		if err := b.settle(q.Submission, dir); err != nil {
			return done, err
		}
		done = append(done, q)
	}
	return done, nil
}

// settle moves a logged submission's staged scenarios and results files
// to runs/N/scenarios and private/results/N, and drops it from the queue.
func (b *Board) settle(n int, dir string) error {
	moves := [][2]string{
		{filepath.Join(dir, "scenarios"), b.Path("runs", strconv.Itoa(n), "scenarios")},
		{filepath.Join(dir, "results"), b.Path("private", "results", strconv.Itoa(n))},
	}
	for _, m := range moves {
		if _, err := os.Stat(m[0]); err != nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(m[1]), 0o700); err != nil {
			return fmt.Errorf("board collect: %w", err)
		}
		os.RemoveAll(m[1]) // a partial move of this very submission
		if err := os.Rename(m[0], m[1]); err != nil {
			return fmt.Errorf("board collect: %w", err)
		}
	}
	if err := os.Remove(b.queuePath(n)); err != nil {
		return fmt.Errorf("board collect: %w", err)
	}
	return os.RemoveAll(dir)
}

// checkStaged checks a staged attestation against its queued submission
// q and the files in the staged directory, into r; it returns the run's
// predicate.
func (b *Board) checkStaged(r *Report, q *RunPredicate, env []byte, dir string, round *Round) *RunPredicate {
	st, err := attest.Verify(b.Pub, env)
	if err != nil {
		r.fail("signature", "%v", err)
		return q
	}
	if st.PredicateType != PredicateRun {
		r.fail("attestation", "predicate type %q, not a run's", st.PredicateType)
		return q
	}
	var p RunPredicate
	if err := json.Unmarshal(st.Predicate, &p); err != nil {
		r.fail("attestation", "predicate: %v", err)
		return q
	}
	r.Run = &p
	if !reflect.DeepEqual(subjectMap(Subjects(&p)), st.Subjects) {
		r.fail("attestation", "its subjects are not the files its predicate names")
	}
	queued := func(field string, got, want any) {
		if !reflect.DeepEqual(got, want) {
			r.fail("attestation", "%s %v, queued as %v", field, short(got), short(want))
		}
	}
	queued("board", p.Board, q.Board)
	queued("submission", p.Submission, q.Submission)
	queued("log record", p.LogIndex, q.LogIndex)
	queued("submitter", p.Submitter, q.Submitter)
	queued("plugin", p.Plugin, q.Plugin)
	queued("plugin file", p.PluginFile, q.PluginFile)
	queued("plugin SHA-256", p.PluginSHA, q.PluginSHA)
	queued("files", p.Files, q.Files)
	queued("submission time", p.Submitted, q.Submitted)
	queued("seed commitment", p.SeedCommitment, round.Commitment)
	queued("sandbox", p.Sandbox, q.Sandbox)
	queued("audit", p.Audit, q.Audit)
	b.verifyFiles(r, "plugin", b.Path("runs", strconv.Itoa(p.Submission), "plugin"), p.Files)
	var want, got []string
	for _, s := range b.Config.Suite {
		want = append(want, s.Name+":"+s.SHA256)
	}
	for _, s := range p.Scenarios {
		got = append(got, s.Name+":"+s.SuiteSHA256)
	}
	if !(p.Conform != nil && !p.Conform.OK && len(got) == 0) && !reflect.DeepEqual(got, want) {
		r.fail("suite", "the run's scenarios %v are not the suite's %v", got, want)
	}
	for _, sc := range p.Scenarios {
		scPath := filepath.Join(dir, "scenarios", sc.Name+".yaml")
		if s, err := sumFile(scPath); err != nil || s != sc.ScenarioSHA256 {
			r.fail("scenario "+sc.Name, "%s: SHA-256 %s, attested %s", scPath, orNone(err, s), sc.ScenarioSHA256)
		}
		if sc.ResultsSHA256 == "" {
			continue
		}
		resPath := filepath.Join(dir, "results", sc.Name+".json")
		s, err := sumFile(resPath)
		if err != nil || s != sc.ResultsSHA256 {
			r.fail("results "+sc.Name, "%s: SHA-256 %s, attested %s", resPath, orNone(err, s), sc.ResultsSHA256)
			continue
		}
		f, err := results.ReadFile(resPath)
		if err != nil {
			r.fail("results "+sc.Name, "%v", err)
			continue
		}
		b.verifyResults(r, &p, sc, f, round)
	}
	return &p
}
