package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/testbin"
)

// makefilePlugins returns the shipped plugins the Makefile's PLUGINS names.
func makefilePlugins(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLUGINS\s*:=\s*(.+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("Makefile: no PLUGINS := line")
	}
	return strings.Fields(string(m[1]))
}

// installEnv is the environment of an installed bench, run as a user
// would: without the tests' plugin variables.
func installEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BENCH_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "BENCH_START_TIMEOUT="+testStartTimeout), extra...)
}

// runInstalled runs an installed bench in a fresh working directory and
// returns stdout, stderr and its exit code.
func runInstalled(t *testing.T, env []string, exe string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	return runExit(t, cmd)
}

// checkInstalled checks an installed bench in dir with the shipped plugins
// beside it, as go install and make install lay them out: dir holds bench
// and bench-plugin-NAME for every plugin of the Makefile, and nothing
// else; bench plugins finds each there, beside bench; a run finds them;
// and a directory of the user's, in BENCH_PLUGIN_PATH, adds a plugin and
// shadows a shipped one of the same name.
func checkInstalled(t *testing.T, dir string) {
	t.Helper()
	plugins := makefilePlugins(t)
	want := []string{"bench"}
	for _, p := range plugins {
		want = append(want, "bench-plugin-"+p)
	}
	sort.Strings(want)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s holds %v, want %v", dir, got, want)
	}
	exe := filepath.Join(dir, "bench")

	stdout, stderr, code := runInstalled(t, installEnv(), exe, "plugins")
	if code != 0 {
		t.Fatalf("bench plugins: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, p := range plugins {
		if line := "  path   " + filepath.Join(dir, "bench-plugin-"+p) + "  (beside bench)\n"; !strings.Contains(stdout, line) {
			t.Errorf("bench plugins lacks %q:\n%s", line, stdout)
		}
	}
	if !strings.Contains(stdout, "\n  "+dir+"  (beside bench): "+strconv.Itoa(len(plugins))+" plugin(s)\n") {
		t.Errorf("bench plugins does not show %s on its search path:\n%s", dir, stdout)
	}

	// The user's own directory: a plugin of theirs (a copy of ucb1 under
	// another name) and one named ts (a copy of klucb), which shadows the
	// shipped ts.
	mine := t.TempDir()
	linkOrCopy(t, filepath.Join(dir, "bench-plugin-ucb1"), filepath.Join(mine, "bench-plugin-myucb"))
	linkOrCopy(t, filepath.Join(dir, "bench-plugin-klucb"), filepath.Join(mine, "bench-plugin-ts"))
	env := installEnv("BENCH_PLUGIN_PATH=" + mine)
	stdout, stderr, code = runInstalled(t, env, exe, "plugins")
	if code != 0 {
		t.Fatalf("bench plugins with BENCH_PLUGIN_PATH: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"  path   " + filepath.Join(mine, "bench-plugin-myucb") + "  (BENCH_PLUGIN_PATH)\n",
		"  path   " + filepath.Join(mine, "bench-plugin-ts") + "  (BENCH_PLUGIN_PATH)\n" +
			"  shadows " + filepath.Join(dir, "bench-plugin-ts") + "  (beside bench): found again, not used\n",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("bench plugins with BENCH_PLUGIN_PATH lacks %q:\n%s", w, stdout)
		}
	}

	// A small run through the shipped plugins, and one of the user's
	// beside them.
	scen := writeFile(t, "inst.yaml", `
name: installed
environment: {means: [0.5, 0.4], noise_sd: 0.2}
horizon: 200
runs: 4
seed: 3
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
  - {plugin: myucb, label: Mine}
`)
	out := filepath.Join(t.TempDir(), "r.json")
	if stdout, stderr, code := runInstalled(t, installEnv("BENCH_PLUGIN_PATH="+mine), exe, "--scenario", scen, "-q", "--out", out); code != 0 {
		t.Fatalf("bench --scenario: exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	wantFile := map[string]string{"TS": filepath.Join(mine, "bench-plugin-ts"), "KL-UCB": filepath.Join(dir, "bench-plugin-klucb"), "Mine": filepath.Join(mine, "bench-plugin-myucb")}
	for _, p := range f.Policies {
		if p.Status != results.StatusOK || p.PluginSHA256 != fileSHA256(t, wantFile[p.Label]) {
			t.Errorf("%s: status %s, plugin_sha256 %s; want ok and that of %s", p.Label, p.Status, p.PluginSHA256, wantFile[p.Label])
		}
	}
	if len(f.Policies) != 3 {
		t.Errorf("%d policies, want 3", len(f.Policies))
	}
}

var (
	goInstallOnce sync.Once
	goInstallDir  string
	goInstallErr  error
)

// goInstalled runs `go install ./cmd/...` from the checkout once per test
// process and returns its GOBIN: TestInstall checks what it gives, and
// TestNewUserJourney runs the bench it installed (one install of the ten
// executables, not two). GOBIN is the tests' cache directory "gobin"
// (testbin.Dir), locked until the process ends, so that the go command
// relinks only what changed since the last run; only what go install
// ./cmd/... gives may be there before it runs, as checkInstalled checks
// that it gives nothing else. Without a cache it is a directory of
// binDir's.
func goInstalled(t *testing.T) string {
	t.Helper()
	goInstallOnce.Do(func() {
		root := repoRoot(t)
		gobin, _, err := testbin.Dir(root, "gobin") // unlocked when the process exits
		if err != nil {
			goInstallErr = err
			return
		}
		if gobin == "" {
			gobin = filepath.Join(binDir, "gobin")
		}
		list := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./cmd/...")
		list.Dir = root
		names, err := output(t, list)
		if err != nil {
			goInstallErr = fmt.Errorf("go list ./cmd/...: %w", err)
			return
		}
		gives := map[string]bool{}
		for _, p := range strings.Fields(string(names)) {
			gives[path.Base(p)] = true
		}
		ents, _ := os.ReadDir(gobin)
		for _, e := range ents {
			if !gives[e.Name()] {
				os.RemoveAll(filepath.Join(gobin, e.Name()))
			}
		}
		cmd := exec.Command("go", "install", "./cmd/...")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOBIN="+gobin)
		if out, err := combinedOutput(t, cmd); err != nil {
			goInstallErr = fmt.Errorf("go install ./cmd/...: %w\n%s", err, out)
			return
		}
		goInstallDir = gobin
	})
	if goInstallErr != nil {
		t.Fatal(goInstallErr)
	}
	return goInstallDir
}

// kept returns the directory name of the tests' cache (testbin.Dir),
// locked until the test ends, or a temporary directory without a cache:
// where go install (GOBIN) and make (BIN) build, the go command relinks
// only what changed since the last run, not the ten executables each
// time (20 links, most of TestInstall's time). Each install is still the
// command a user runs, from the current sources.
func kept(t *testing.T, root, name string) string {
	t.Helper()
	dir, unlock, err := testbin.Dir(root, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	if dir == "" {
		dir = filepath.Join(t.TempDir(), name)
	}
	return dir
}

// TestInstall: `go install ./cmd/...` (what `go install
// github.com/regretbench/regretbench/cmd/...@latest` does) and `make
// install PREFIX=...` each give bench and every shipped plugin, side by
// side under the names bench looks for, and the installed bench finds
// them there.
func TestInstall(t *testing.T) {
	skipShort(t, "go install ./cmd/... and make install into temporary directories, then running the installed bench")
	t.Parallel()
	root := repoRoot(t)
	t.Run("go install", func(t *testing.T) {
		t.Parallel()
		checkInstalled(t, goInstalled(t))
	})
	t.Run("make install", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("make"); err != nil {
			t.Skipf("make install needs make, which is not in PATH (Debian: make): %v", err)
		}
		tmp := t.TempDir()
		prefix := filepath.Join(tmp, "prefix")
		// BIN: the build goes to a directory of the tests', not the
		// tree's bin/; PREFIX is a fresh one.
		cmd := exec.Command("make", "--no-print-directory", "install", "PREFIX="+prefix, "BIN="+kept(t, root, "make-bin"))
		cmd.Dir = root
		if out, err := combinedOutput(t, cmd); err != nil {
			t.Fatalf("make install: %v\n%s", err, out)
		}
		checkInstalled(t, filepath.Join(prefix, "bin"))
	})
}
