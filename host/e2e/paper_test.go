package e2e_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// TestPaper: bench paper writes every scenario's results, report and
// figures (and the two-, three- and ten-arm files taken from the sweeps),
// with policies in scenario order, and its numbers are those of the single-scenario runs
// although it schedules policies longest first across scenarios.
func TestPaper(t *testing.T) {
	skipShort(t, "bench paper over every scenario of the paper")
	t.Parallel()
	dir, stdout := plainPaper(t)
	if !strings.Contains(stdout, "Final values at T") || !strings.Contains(stdout, "ReMaxGrad M=4") {
		t.Errorf("summary table missing:\n%s", stdout)
	}
	for _, name := range []string{"two_arm", "three_arm", "ten_arm", "obd", "movielens", "failure_mode",
		"remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"} {
		for _, ext := range []string{".json", ".txt", ".tex", "_regret.png", "_regret.svg", "_underestimation.png", "_separated.png"} {
			if fi, err := os.Stat(filepath.Join(dir, name+ext)); err != nil || fi.Size() == 0 {
				t.Errorf("missing or empty %s%s: %v", name, ext, err)
			}
		}
	}
	for _, fig := range []string{"remaxgrad_ten_arm_diag_kkt_gap.png", "failure_mode_diag_support_size.png"} {
		if _, err := os.Stat(filepath.Join(dir, fig)); err != nil {
			t.Errorf("missing diagnostics figure: %v", err)
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatalf("bench paper wrote no index.html: %v", err)
	}
	if n := strings.Count(string(index), `<section class="experiment"`); n != 9 {
		t.Errorf("index.html has %d experiment sections, want 9 (six runs and the three main-text instances)", n)
	}
	if i, j := strings.Index(string(index), `id="exp-1-two_arm"`), strings.Index(string(index), `id="exp-9-remaxgrad_ten_arm"`); i < 0 || j < i {
		t.Errorf("index.html: two_arm should come first, the sweeps last (%d, %d)", i, j)
	}
	if !strings.Contains(string(index), " paper --runs 4 --horizon 120 --out ") {
		t.Errorf("index.html does not show the command line")
	}
	if _, stderr, code := bench(t, "paper", "--plot-format", "gif", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "--plot-format") {
		t.Errorf("--plot-format gif: exit %d, want 2 naming the flag\n%s", code, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "failure_mode.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range f.Policies {
		got = append(got, p.Label)
	}
	if want := []string{"ReMax", "ReMax c2=2", "ReMax c2=3", "ReMax c2=4", "TS", "KL-UCB"}; !reflect.DeepEqual(got, want) {
		t.Errorf("failure_mode policies %v, want %v", got, want)
	}
	single := filepath.Join(t.TempDir(), "ten.json")
	if _, stderr, code := bench(t, "--scenario", "ten_arm", "--runs", "4", "--horizon", "120", "-q", "--out", single); code != 0 {
		t.Fatalf("ten_arm: exit %d\n%s", code, stderr)
	}
	a, err := results.ReadFile(filepath.Join(dir, "ten_arm.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.ReadFile(single)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Policies {
		if a.Policies[i].Label != b.Policies[i].Label || !reflect.DeepEqual(a.Policies[i].Final, b.Policies[i].Final) {
			t.Errorf("ten_arm %s: bench paper differs from bench --scenario ten_arm", b.Policies[i].Label)
		}
	}
}

// paper is one play of bench paper --runs 4 --horizon 120 (the figures in
// every format), shared by the tests that read it (TestPaper, and
// TestPaperWithExternalPlugin's plain paper): each play of the whole
// paper is much of this package's time. Its directory is under binDir,
// which TestMain removes.
var paper struct {
	once        sync.Once
	dir, stdout string
	stderr      string
	code        int
	err         error
}

// plainPaper plays the paper once for every test that calls it, and
// returns its directory and stdout; it fails the test when the play failed.
func plainPaper(t *testing.T) (dir, stdout string) {
	t.Helper()
	paper.once.Do(func() {
		paper.code = -1 // if bench fails the test that plays it, every other sees it failed
		if paper.dir, paper.err = os.MkdirTemp(binDir, "paper"); paper.err != nil {
			return
		}
		paper.stdout, paper.stderr, paper.code = bench(t, "paper", "--runs", "4", "--horizon", "120", "--out", paper.dir, "--start-timeout", testStartTimeout)
	})
	if paper.err != nil || paper.code != 0 {
		t.Fatalf("bench paper --runs 4 --horizon 120: %v, exit %d\n%s", paper.err, paper.code, paper.stderr)
	}
	return paper.dir, paper.stdout
}
