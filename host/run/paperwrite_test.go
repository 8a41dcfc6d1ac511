package run_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
)

// paperPlayed is a paper run's results with the report package's fixture
// as obd's and movielens's, the other scenarios not run.
func paperPlayed(t *testing.T) *run.AllResults {
	t.Helper()
	played := &run.AllResults{Files: make([]*results.File, len(run.PaperRuns)), Finished: make([]bool, len(run.PaperRuns)), Elapsed: 2 * time.Second}
	for i, pr := range run.PaperRuns {
		played.Finished[i] = true
		if pr.Scenario == "obd" || pr.Scenario == "movielens" {
			f, err := results.ReadFile("../report/testdata/small.json")
			if err != nil {
				t.Fatal(err)
			}
			played.Files[i] = f
		}
	}
	return played
}

// writePaper runs WritePaper into dir and returns what it wrote, said and
// stamped.
func writePaper(t *testing.T, dir string, played *run.AllResults, interrupted bool) (pw *run.PaperWritten, stdout, stderr string, stamped, shown int) {
	t.Helper()
	var out, errs bytes.Buffer
	pw, err := run.WritePaper(played, run.PaperOutput{
		Dir: dir, Formats: []string{"svg"}, Compare: compareDefaults, Interrupted: interrupted,
		Stdout: &out, Stderr: &errs,
		Stamp:   func(*results.File) { stamped++ },
		Written: func(all []*results.File) { shown = len(all) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return pw, out.String(), errs.String(), stamped, shown
}

// TestWritePaper: each experiment run gets its results file, text and
// LaTeX tables and figures, index.html shows them, stdout gets the
// summary and a closing line; each file is stamped before it is written.
func TestWritePaper(t *testing.T) {
	dir := t.TempDir()
	pw, stdout, stderr, stamped, shown := writePaper(t, dir, paperPlayed(t), false)
	if !slices.Equal(pw.Done, []string{"obd", "movielens"}) || len(pw.Left) != 0 || pw.Failed != 0 || stderr != "" {
		t.Errorf("wrote %+v, stderr %q; want obd and movielens, nothing failed", pw, stderr)
	}
	if stamped != 2 || shown != 2 {
		t.Errorf("stamped %d files, showed %d, want 2 and 2", stamped, shown)
	}
	for _, name := range []string{"obd.json", "obd.txt", "obd.tex", "movielens.json", "movielens.txt", "movielens.tex", "small_regret.svg", "index.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if txt, _ := os.ReadFile(filepath.Join(dir, "obd.txt")); !strings.Contains(string(txt), "Regret at T=200") {
		t.Errorf("obd.txt lacks the regret table:\n%s", txt)
	}
	if tex, _ := os.ReadFile(filepath.Join(dir, "obd.tex")); !strings.Contains(string(tex), `\begin{tabular}`) {
		t.Errorf("obd.tex lacks the LaTeX table:\n%s", tex)
	}
	if want := "\n2 experiments (2 scenario runs) in 2.0 s wall; results in " + dir + "/\n"; !strings.HasSuffix(stdout, want) {
		t.Errorf("stdout does not end with %q:\n%s", want, stdout)
	}
}

// TestWritePaperInterrupted: interrupted, only the scenarios that ran to
// their end are written; the others are listed as left.
func TestWritePaperInterrupted(t *testing.T) {
	dir := t.TempDir()
	played := paperPlayed(t)
	for i, pr := range run.PaperRuns {
		played.Finished[i] = pr.Scenario != "movielens" && pr.Scenario != "failure_mode"
	}
	pw, _, _, stamped, _ := writePaper(t, dir, played, true)
	if !slices.Equal(pw.Done, []string{"obd"}) || !slices.Equal(pw.Left, []string{"failure_mode", "movielens"}) || stamped != 1 {
		t.Errorf("wrote %+v, stamped %d; want obd done, failure_mode and movielens left", pw, stamped)
	}
	if _, err := os.Stat(filepath.Join(dir, "movielens.json")); !os.IsNotExist(err) {
		t.Errorf("movielens.json written from an unfinished run (stat: %v)", err)
	}
}

// TestWritePaperReportTargets: the text report, like the results files,
// replaces only regular files: a symbolic link (or a FIFO, which
// blocked) in the directory is refused and left as it was, named on
// stderr and counted, and everything else is written.
func TestWritePaperReportTargets(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere.txt")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "obd.txt")); err != nil {
		t.Fatal(err)
	}
	pw, stdout, stderr, _, _ := writePaper(t, dir, paperPlayed(t), false)
	if want := "bench: report " + filepath.Join(dir, "obd.txt") + ": not a regular file: it is a symbolic link"; pw.Failed != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("%d failed, stderr %q; want 1 starting with %q", pw.Failed, stderr, want)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Errorf("the link's target was overwritten: %.40q", data)
	}
	for _, name := range []string{"obd.json", "obd.tex", "movielens.txt", "index.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if !strings.Contains(stdout, "2 experiments") {
		t.Errorf("no closing line:\n%s", stdout)
	}
}
