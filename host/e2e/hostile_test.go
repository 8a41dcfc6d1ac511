package e2e_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
)

// benchReturns is bench with a hang check: it fails the test if the call
// has not returned after a generous bound (before the fixes, a FIFO as an
// input blocked forever).
func benchReturns(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	type res struct {
		out, err string
		code     int
	}
	done := make(chan res, 1)
	go func() {
		o, e, c := bench(t, args...)
		done <- res{o, e, c}
	}()
	select {
	case r := <-done:
		return r.out, r.err, r.code
	case <-time.After(time.Minute): // a hang check, not a timing assertion
		t.Fatalf("bench %v: still running after a minute", args)
	}
	panic("unreachable")
}

// TestBadFlagValues: every numeric and duration flag of every subcommand
// refuses a bad value with exit 2 and a message naming the flag, before
// anything runs. --shard 0/20 with 10 runs divided by zero and
// --step-timeout -1s panicked in time.NewTicker; negative --batch, --jobs
// and timeouts, and bad gate flags without --baseline, were accepted.
func TestBadFlagValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := []string{"--scenario", "quick", "--runs", "10", "--horizon", "20", "-q"}
	paper := []string{"paper", "--out", filepath.Join(dir, "paper"), "--runs", "2", "--horizon", "20"}
	gate := []string{"gate", filepath.Join(dir, "none-a.json"), filepath.Join(dir, "none-b.json")}
	plus := func(base []string, extra ...string) []string { return append(append([]string{}, base...), extra...) }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{plus(run, "--runs", "0"), "--runs 0: must be >= 1"},
		{plus(run, "--runs", "-3"), "--runs -3: must be >= 1"},
		{plus(run, "--runs", "2000000"), "--runs 2000000: exceeds the maximum 1000000"},
		{plus(run, "--horizon", "0"), "--horizon 0: must be >= 1"},
		{plus(run, "--horizon", "-5"), "--horizon -5: must be >= 1"},
		{plus(run, "--horizon", "200000000"), "--horizon 200000000: exceeds the maximum 100000000"},
		{plus(run, "--batch", "-1"), "--batch -1: must be >= 0"},
		{plus(run, "--jobs", "-2"), "--jobs -2: must be >= 0"},
		{plus(run, "--step-timeout", "-1s"), "--step-timeout -1s: must be > 0"},
		{plus(run, "--step-timeout", "0s"), "--step-timeout 0s: must be > 0"},
		{plus(run, "--start-timeout", "-1s"), "--start-timeout -1s: must be > 0"},
		{plus(run, "--start-timeout", "0s"), "--start-timeout 0s: must be > 0"},
		{plus(run, "--shard", "0/20"), "--shard 0/20: 20 shards of 10 runs would leave some empty; use at most 10 shards"},
		{plus(run, "--shard", "3/3"), `--shard "3/3": want I/N with 0 <= I < N`},
		{plus(run, "--shard", "-1/3"), `--shard "-1/3"`},
		{plus(run, "--at", "0"), `--at 0: round "0" is not a positive integer`},
		{plus(run, "--at", "-5"), `--at -5: round "-5" is not a positive integer`},
		{plus(run, "--at", "99999"), "--at: round 99999 is not a checkpoint"},
		{plus(run, "--alpha", "2"), "--alpha 2: must be in (0, 1)"},
		{plus(run, "--alpha", "0"), "--alpha 0: must be in (0, 1)"},
		{plus(run, "--margin", "-5%"), `--margin: margin "-5%": must be finite and >= 0`},
		{plus(run, "--margin", "abc"), `--margin: margin "abc"`},
		{plus(run, "--metric", "regrets"), `--metric: unknown metric "regrets"`},
		{plus(run, "--format", "xml"), "--format"},
		{plus(run, "--plot", dir, "--plot-format", "gif"), "--plot-format"},
		{[]string{"run", "--scenario", "quick", "--step-timeout", "-1s"}, "--step-timeout -1s: must be > 0"},
		{[]string{"run", "--scenario", "quick", "--runs", "5", "--shard", "0/6"}, "--shard 0/6: 6 shards of 5 runs"},
		{plus(paper, "--runs", "0"), "--runs 0: must be >= 1"},
		{plus(paper, "--horizon", "-5"), "--horizon -5: must be >= 1"},
		{plus(paper, "--horizon", "0"), "--horizon 0: must be >= 1"},
		{plus(paper, "--jobs", "-1"), "--jobs -1: must be >= 0"},
		{plus(paper, "--step-timeout", "-1s"), "--step-timeout -1s: must be > 0"},
		{plus(paper, "--start-timeout", "0s"), "--start-timeout 0s: must be > 0"},
		{plus(paper, "--plot-format", "gif"), "--plot-format"},
		{plus(gate, "--alpha", "1"), "--alpha 1: must be in (0, 1)"},
		{plus(gate, "--alpha", "-0.1"), "--alpha -0.1: must be in (0, 1)"},
		{plus(gate, "--metric", "x"), `--metric: unknown metric "x"`},
		{plus(gate, "--margin", "5%%"), `--margin: margin "5%%"`},
		{[]string{"merge", filepath.Join(dir, "a.json")}, "merge: --out is required"},
		{[]string{"plot", filepath.Join(dir, "a.json"), "--out", dir, "--format", "gif"}, "--format"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := benchReturns(t, tc.args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stdout, "Regret at") {
				t.Errorf("a run happened despite the bad flag:\n%s", stdout)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "paper")); err == nil {
		t.Errorf("bench paper created its --out directory despite a bad flag")
	}
}

// TestBadFlagFromEnvironment: a value from BENCH_* is validated like one
// from the command line.
func TestBadFlagFromEnvironment(t *testing.T) {
	t.Setenv("BENCH_STEP_TIMEOUT", "-1s")
	_, stderr, code := benchReturns(t, "--scenario", "quick", "--runs", "2", "--horizon", "10", "-q")
	if code != cli.ExitInput || !strings.Contains(stderr, "--step-timeout -1s: must be > 0") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestSpecialInputFiles: a FIFO, a device or a hostile YAML file given as
// the scenario, a results file or the --config file is refused at once
// with exit 2, naming the file once.
func TestSpecialInputFiles(t *testing.T) {
	skipShort(t, "FIFOs, devices and links given as every input file")
	t.Parallel()
	dir := t.TempDir()
	mkfifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("cannot make the FIFO this test reads from (mkfifo, not supported by this file system?): %v", err)
		}
		return p
	}
	zero := func(name string) string { // a name with the right extension for /dev/zero
		p := filepath.Join(dir, name)
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var bomb strings.Builder
	bomb.WriteString("runs: 3\nx0: &x0 [a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i < 20; i++ {
		fmt.Fprintf(&bomb, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d, ", i-1), 9), ", "))
	}
	bombCfg := writeFile(t, "bomb.yaml", bomb.String())
	deepCfg := writeFile(t, "deep.yaml", "runs: 3\nx: "+strings.Repeat("{a: ", 2000)+"1"+strings.Repeat("}", 2000)+"\n")
	scenFIFO, resFIFO, cfgFIFO := mkfifo("s.yaml"), mkfifo("r.json"), mkfifo("c.yaml")
	scenZero, resZero, cfgZero := zero("sz.yaml"), zero("rz.json"), zero("cz.yaml")
	quick := []string{"--scenario", "quick", "--runs", "2", "--horizon", "10", "-q"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"scenario fifo", []string{"--scenario", scenFIFO}, "scenario " + scenFIFO + ": not a regular file (a named pipe (FIFO))"},
		{"scenario device", []string{"--scenario", scenZero}, "scenario " + scenZero + ": not a regular file (a character device)"},
		{"gate fifo", []string{"gate", resFIFO, resFIFO}, "results " + resFIFO + ": not a regular file (a named pipe (FIFO))"},
		{"merge device", []string{"merge", resZero, "--out", filepath.Join(dir, "m.json")}, "results " + resZero + ": not a regular file (a character device)"},
		{"plot fifo", []string{"plot", resFIFO, "--out", dir}, "results " + resFIFO + ": not a regular file"},
		{"baseline fifo", append([]string{"--baseline", resFIFO}, quick...), "results " + resFIFO + ": not a regular file"},
		{"config fifo", append([]string{"--config", cfgFIFO}, quick...), "config " + cfgFIFO + ": not a regular file (a named pipe (FIFO))"},
		{"config device", append([]string{"--config", cfgZero}, quick...), "config " + cfgZero + ": not a regular file (a character device)"},
		{"config alias bomb", append([]string{"--config", bombCfg}, quick...), "config " + bombCfg + ": more than 10000 values once aliases are expanded"},
		{"config deep", append([]string{"--config", deepCfg}, quick...), "config " + deepCfg + ": nested more than 16 levels deep (line 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := benchReturns(t, tc.args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "open ") {
				t.Errorf("stderr repeats the path in an os error:\n%s", stderr)
			}
		})
	}
}

// TestOutRefusesInputs: --out (and --save-baseline) may not be an input
// of the same command, a symbolic link or anything but a regular file;
// each is refused with exit 2 before anything runs, and the input is left
// as it was. Before, the results were renamed over the scenario file, a
// merge input, the link, or (as root) /dev/null.
func TestOutRefusesInputs(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, "mine.yaml", "environment: {means: [1, 0], noise_sd: 1}\nhorizon: 10\nruns: 2\npolicies: [{plugin: ts, label: TS}]\n")
	base := filepath.Join(dir, "base.json")
	if _, stderr, code := bench(t, "--scenario", scen, "-q", "--out", base); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, stderr)
	}
	s0, s1 := filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json")
	for i, p := range []string{s0, s1} {
		if _, stderr, code := bench(t, "--scenario", scen, "-q", "--shard", fmt.Sprintf("%d/2", i), "--out", p); code != 0 {
			t.Fatalf("shard run: exit %d\n%s", code, stderr)
		}
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(base, link); err != nil {
		t.Fatal(err)
	}
	scenLink := filepath.Join(dir, "scen-link.yaml") // another name of the scenario
	if err := os.Symlink(scen, scenLink); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make the FIFO this test reads from (mkfifo, not supported by this file system?): %v", err)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		for _, p := range []string{scen, base, s0, s1} {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = string(data)
		}
		for _, p := range []string{link, scenLink, fifo} {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = fi.Mode().Type().String()
		}
		return m
	}
	cfg := writeFile(t, "cfg.yaml", "runs: 2\n")
	plugins := freshPluginDir(t, "ts")
	plugin := filepath.Join(plugins, "bench-plugin-ts")
	before := snapshot()
	before[cfg], before[plugin] = readString(t, cfg), readString(t, plugin)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"out is the scenario", []string{"--scenario", scen, "-q", "--out", scen}, "--out " + scen + " is the scenario file"},
		{"out is the scenario by another name", []string{"--scenario", scen, "-q", "--out", filepath.Dir(scen) + "/./mine.yaml"}, "is the scenario file (" + scen + ")"},
		{"out links to the scenario", []string{"--scenario", scenLink, "-q", "--out", scen}, "is the scenario file (" + scenLink + ")"},
		{"run subcommand", []string{"run", "--scenario", scen, "-q", "--out", scen}, "is the scenario file"},
		{"out is the baseline", []string{"--scenario", scen, "-q", "--baseline", base, "--out", base}, "--out " + base + " is the --baseline"},
		{"save-baseline is the scenario", []string{"--scenario", scen, "-q", "--save-baseline", scen}, "--save-baseline " + scen + " is the scenario file"},
		{"out is a symlink", []string{"--scenario", scen, "-q", "--out", link}, "--out " + link + ": not a regular file: it is a symbolic link"},
		{"out is a fifo", []string{"--scenario", scen, "-q", "--out", fifo}, "--out " + fifo + ": not a regular file: it is a named pipe (FIFO)"},
		{"out is a directory", []string{"--scenario", scen, "-q", "--out", dir}, "--out " + dir + ": not a regular file: it is a directory"},
		{"out is /dev/null", []string{"--scenario", scen, "-q", "--out", os.DevNull}, "--out /dev/null: not a regular file: it is a character device"},
		{"out is the config file", []string{"--config", cfg, "--scenario", scen, "-q", "--out", cfg}, "--out " + cfg + " is the --config file"},
		{"out is a plugin", []string{"--plugin-dir", plugins, "--scenario", scen, "-q", "--out", plugin}, "--out " + plugin + ` is the plugin of policy "TS"`},
		{"merge out is the config file", []string{"--config", cfg, "merge", s0, s1, "--out", cfg}, "is the --config file"},
		{"cpuprofile is a fifo", []string{"--cpuprofile", fifo, "scenarios"}, "--cpuprofile " + fifo + ": not a regular file: it is a named pipe (FIFO)"},
		{"merge out is an input", []string{"merge", s0, s1, "--out", s1}, "--out " + s1 + " is a merge input"},
		{"merge out is a symlink", []string{"merge", s0, s1, "--out", link}, "it is a symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := benchReturns(t, tc.args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stdout, "Regret at") || strings.Contains(stdout, "merged") {
				t.Errorf("it ran despite the refused --out:\n%s", stdout)
			}
			after := snapshot()
			after[cfg], after[plugin] = readString(t, cfg), readString(t, plugin)
			for p, was := range before {
				if after[p] != was {
					t.Errorf("%s changed", p)
				}
			}
		})
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a character device: %v %v", fi.Mode(), err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
