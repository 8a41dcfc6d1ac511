package board_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/board"
	"github.com/regretbench/regretbench/host/board/attest"
	"github.com/regretbench/regretbench/host/results"
)

// jobBoard is a board opened once, copied before any submission: its
// copies share the key, the seed and the round, so that one may take the
// submissions as jobs and another one after another.
func jobBoard(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "board")
	for _, args := range [][]string{
		{"board", "init", dir, "--suite", filepath.Join("testdata", "hard.yaml"), "--runs", "8", "--audit", "2", "--limit", "1", "--name", "jobs", "--conform=false"},
		{"board", "open", dir},
	} {
		if out, stderr, code := bench(t, args...); code != 0 {
			t.Fatalf("bench %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
	}
	return dir
}

func copyBoard(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "board")
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// submissions are the round's: a shipped plugin, the audit cheat (which
// is recorded as failed) and another shipped plugin.
var submissions = []struct{ submitter, plugin string }{
	{"alice", "bench-plugin-ts"},
	{"mallory", "bench-plugin-cheat-pool"},
	{"bob", "bench-plugin-ucb1"},
}

// logFiles are a board's log: every entry, the leaves and checkpoints.
func logFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(dir, "log"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJobsCollect: the round's submissions queued, run as concurrent
// jobs (as array tasks would, sharing the board's directory) and
// collected give the board that running them one after another gives:
// the same rows (but for what a run cannot repeat: the submission time,
// the results files' timing and provenance, the audit's draw), results
// bit-identical where a rerun must be, and every row verified after the
// reveal. The log does not depend on the order the jobs finished in nor
// on when collect ran: collected at once, or as each job finished in
// another order, it is the same byte for byte. A second attempt at a
// staged job changes nothing; the reveal and a direct submission wait
// for the queue.
func TestJobsCollect(t *testing.T) {
	t.Parallel()
	needStrict(t)
	base := jobBoard(t)
	seq := copyBoard(t, base)
	jobs := base
	run := func(want int, args ...string) string {
		t.Helper()
		out, stderr, code := bench(t, args...)
		if code != want {
			t.Fatalf("bench %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, stderr)
		}
		return out + stderr
	}

	// One after another.
	for _, s := range submissions {
		want := 0
		if s.submitter == "mallory" {
			want = 3
		}
		run(want, "board", "submit", seq, "--submitter", s.submitter, filepath.Join(binDir, s.plugin))
	}

	// As jobs.
	for _, s := range submissions {
		run(0, "board", "queue", jobs, "--submitter", s.submitter, filepath.Join(binDir, s.plugin))
	}
	if out := run(2, "board", "queue", jobs, "--submitter", "alice", filepath.Join(binDir, "bench-plugin-ts")); !strings.Contains(out, `submitter "alice" has made its 1 submissions`) {
		t.Errorf("a queued submission does not count against the limit:\n%s", out)
	}
	if got := strings.TrimSpace(run(0, "board", "jobs", jobs, "--array")); got != "0-2" {
		t.Errorf("jobs --array: %q, want 0-2", got)
	}
	if got := strings.TrimSpace(run(0, "board", "jobs", jobs, "--json")); got != "[0,1,2]" {
		t.Errorf("jobs --json: %q, want [0,1,2]", got)
	}
	if out := run(1, "board", "submit", jobs, "--submitter", "carol", filepath.Join(binDir, "bench-plugin-ts")); !strings.Contains(out, "3 queued submissions (0, 1, 2) are not collected") {
		t.Errorf("a direct submission while the queue waits:\n%s", out)
	}
	var wg sync.WaitGroup
	outs := make([]string, len(submissions))
	for i := len(submissions) - 1; i >= 0; i-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, stderr, code := bench(t, "board", "submit", jobs, "--job", fmt.Sprint(i))
			outs[i] = fmt.Sprintf("exit %d\n%s%s", code, out, stderr)
		}()
	}
	wg.Wait()
	for i, o := range outs {
		if !strings.HasPrefix(o, "exit 0\n") || !strings.Contains(o, "staged for log record") {
			t.Errorf("job %d: %s", i, o)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if out := run(0, "board", "submit", jobs, "--job", "1"); !strings.Contains(out, "staged already") {
		t.Errorf("a second attempt at job 1: %s", out)
	}
	if got := strings.TrimSpace(run(0, "board", "jobs", jobs, "--array")); got != "" {
		t.Errorf("jobs --array with every job staged: %q, want none", got)
	}
	if out := run(0, "board", "status", jobs); !strings.Contains(out, "queue: 3 submissions not yet logged, 3 of them staged") {
		t.Errorf("board status with 3 jobs staged does not say so:\n%s", out)
	}
	if out := run(1, "board", "reveal", jobs); !strings.Contains(out, "not collected") {
		t.Errorf("the reveal with staged jobs not collected:\n%s", out)
	}

	// Collected as the jobs finished, in another order: job 2 first (it
	// waits for 0 and 1), then 0, then 1.
	staggered := copyBoard(t, jobs)
	staged := func(n int) string { return filepath.Join(staggered, "private", "jobs", "staged", fmt.Sprint(n)) }
	for _, n := range []int{0, 1} {
		if err := os.Rename(staged(n), staged(n)+".later"); err != nil {
			t.Fatal(err)
		}
	}
	if out := run(1, "board", "collect", staggered); !strings.Contains(out, "3 submissions wait for their jobs (0, 1, 2)") {
		t.Errorf("collect with only job 2 staged:\n%s", out)
	}
	os.Rename(staged(0)+".later", staged(0))
	if out := run(1, "board", "collect", staggered); !strings.Contains(out, "submission 0 (") || !strings.Contains(out, "2 submissions wait for their jobs (1, 2)") {
		t.Errorf("collect with jobs 0 and 2 staged:\n%s", out)
	}
	os.Rename(staged(1)+".later", staged(1))
	run(0, "board", "collect", staggered)

	out := run(0, "board", "collect", jobs)
	if strings.Count(out, "(log record") != 3 {
		t.Errorf("collect:\n%s", out)
	}
	if a, b := logFiles(t, jobs), logFiles(t, staggered); !reflect.DeepEqual(a, b) {
		t.Errorf("the log collected at once and the one collected as the jobs finished in another order differ:\n%v\n%v", keys(a), keys(b))
	}

	// The same rows as one after another.
	rowsOf := func(dir string) []board.Row {
		b, err := board.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := b.Rows()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	jr, sr := rowsOf(jobs), rowsOf(seq)
	if len(jr) != len(submissions) || len(sr) != len(submissions) {
		t.Fatalf("%d rows as jobs, %d one after another; want %d", len(jr), len(sr), len(submissions))
	}
	// The audit's message names the replication it drew and its values.
	draw := regexp.MustCompile(`replication \d+ gives final regret [0-9.e+-]+ alone but [0-9.e+-]+`)
	for i := range jr {
		a, b := *jr[i].Run, *sr[i].Run
		if jr[i].Index != sr[i].Index || a.Plugin != submissions[i].plugin[len("bench-plugin-"):] {
			t.Errorf("row %d: log record %d (%s) as a job, %d one after another", i, jr[i].Index, a.Plugin, sr[i].Index)
		}
		for _, p := range []*board.RunPredicate{&a, &b} {
			p.Submitted = "" // when it was submitted
			p.Reason = draw.ReplaceAllString(p.Reason, "the drawn replication")
			p.Scenarios = append([]board.ScenarioRun(nil), p.Scenarios...)
			for k := range p.Scenarios {
				sc := &p.Scenarios[k]
				sc.ResultsSHA256 = "" // the results files hold their timing and provenance
				sc.Error = draw.ReplaceAllString(sc.Error, "the drawn replication")
				if sc.Audit != nil {
					au := *sc.Audit
					au.Replications = nil // drawn at random by each run
					sc.Audit = &au
				}
			}
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("row %d differs:\nas a job:            %+v\none after another:   %+v", i, a, b)
		}
		for _, sc := range jr[i].Run.Scenarios {
			res := func(dir string) *results.File {
				f, err := results.ReadFile(filepath.Join(dir, "private", "results", fmt.Sprint(i), sc.Name+".json"))
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			if d := board.Differences(res(jobs), res(seq)); len(d) > 0 {
				t.Errorf("row %d, scenario %s: the results differ: %s", i, sc.Name, strings.Join(d, "; "))
			}
			scFile := filepath.Join("runs", fmt.Sprint(i), "scenarios", sc.Name+".yaml")
			x, _ := os.ReadFile(filepath.Join(jobs, scFile))
			y, _ := os.ReadFile(filepath.Join(seq, scFile))
			if len(x) == 0 || !bytes.Equal(x, y) {
				t.Errorf("%s differs", scFile)
			}
		}
	}
	if jr[1].Run.Outcome != board.OutcomeFailed || !strings.Contains(jr[1].Run.Reason, "audit") {
		t.Errorf("the cheat's row as a job: %s (%s), want failed by its audit", jr[1].Run.Outcome, jr[1].Run.Reason)
	}
	if _, err := os.Stat(filepath.Join(jobs, "private", "jobs", "queue", "0.json")); err == nil {
		t.Error("a collected submission is still queued")
	}

	run(0, "board", "reveal", jobs)
	if out := run(0, "verify", jobs); strings.Count(out, ": verified") != 1+len(submissions) {
		t.Errorf("verify after the reveal:\n%s", out)
	}
}

func keys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	return k
}

// TestCollectChecks: collect logs no staged outcome that does not check,
// nor any after it, and names what does not match: a results file
// changed after its job signed it, an attestation staged for another
// submission, one signed by another key, a plugin file changed after it
// was queued.
func TestCollectChecks(t *testing.T) {
	t.Parallel()
	needStrict(t)
	dir := jobBoard(t)
	for _, s := range submissions[:2] {
		if out, stderr, code := bench(t, "board", "queue", dir, "--submitter", s.submitter, filepath.Join(binDir, s.plugin)); code != 0 {
			t.Fatalf("queue: exit %d\n%s%s", code, out, stderr)
		}
	}
	for _, n := range []string{"0", "1"} {
		if out, stderr, code := bench(t, "board", "submit", dir, "--job", n); code != 0 {
			t.Fatalf("job %s: exit %d\n%s%s", n, code, out, stderr)
		}
	}
	other := jobBoard(t) // another board, another key
	if out, stderr, code := bench(t, "board", "queue", other, "--submitter", "x", filepath.Join(binDir, "bench-plugin-ts")); code != 0 {
		t.Fatalf("queue: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code := bench(t, "board", "submit", other, "--job", "0"); code != 0 {
		t.Fatalf("job: exit %d\n%s%s", code, out, stderr)
	}
	staged := func(dir string, n int, elem ...string) string {
		return filepath.Join(append([]string{dir, "private", "jobs", "staged", fmt.Sprint(n)}, elem...)...)
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		want   string
	}{
		{"results", func(t *testing.T, dir string) {
			p := staged(dir, 1, "results", "hard.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(data, []byte(`"regret"`), []byte(`"regreT"`), 1), 0o644)
		}, "results hard: "},
		{"swapped", func(t *testing.T, dir string) {
			data, _ := os.ReadFile(staged(dir, 0, "attestation.json"))
			os.WriteFile(staged(dir, 1, "attestation.json"), data, 0o644)
		}, "attestation: submission 0, queued as 1"},
		{"key", func(t *testing.T, dir string) {
			data, _ := os.ReadFile(staged(other, 0, "attestation.json"))
			os.WriteFile(staged(dir, 1, "attestation.json"), data, 0o644)
		}, "signature: "},
		{"plugin", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "runs", "1", "plugin", "bench-plugin-cheat-pool")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, 0), 0o755)
		}, "plugin: bench-plugin-cheat-pool: SHA-256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := copyBoard(t, dir)
			tt.tamper(t, d)
			out, stderr, code := bench(t, "board", "collect", d)
			if code != 1 || !strings.Contains(stderr, "submission 1 does not check") || !strings.Contains(stderr, tt.want) {
				t.Errorf("collect: exit %d, want 1 naming %q\n%s%s", code, tt.want, out, stderr)
			}
			if !strings.Contains(out, "submission 0 (") {
				t.Errorf("collect did not log submission 0, which checks:\n%s", out)
			}
			b, _ := board.Load(d)
			if n, _ := b.Log().Size(); n != 2 {
				t.Errorf("the log has %d records, want 2: the round's and submission 0's", n)
			}
		})
	}

	// A collect stopped after it appended submission 0 and before it
	// moved its files: the next one finishes it, appending it once.
	t.Run("interrupted", func(t *testing.T) {
		d := copyBoard(t, dir)
		b, err := board.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		keyText, err := os.ReadFile(filepath.Join(d, "private", "key"))
		if err != nil {
			t.Fatal(err)
		}
		k, err := attest.ParseKey(string(keyText))
		if err != nil {
			t.Fatal(err)
		}
		env, err := os.ReadFile(staged(d, 0, "attestation.json"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Log().Append(env, k.Signer); err != nil {
			t.Fatal(err)
		}
		if out, stderr, code := bench(t, "board", "collect", d); code != 0 || !strings.Contains(out, "submission 0 (") || !strings.Contains(out, "submission 1 (") {
			t.Fatalf("collect after an interrupted one: exit %d\n%s%s", code, out, stderr)
		}
		if n, _ := b.Log().Size(); n != 3 {
			t.Errorf("the log has %d records, want 3: the round's and submissions 0 and 1, each once", n)
		}
		if _, err := os.Stat(filepath.Join(d, "runs", "0", "scenarios", "hard.yaml")); err != nil {
			t.Errorf("submission 0's files were not moved into place: %v", err)
		}
		if out, _, code := bench(t, "verify", d); code != 0 {
			t.Errorf("verify: exit %d\n%s", code, out)
		}
	})
}
