package e2e_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// benchProcess runs the bench executable with args and returns stdout,
// stderr and the exit code, failing the test when it is still running
// after two minutes (a hang check, not a timing assertion: each call here
// takes a second or two). A process, not bench in process, so that a hang
// can be ended.
func benchProcess(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "bench"), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	err := runLimited(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("bench %v: still running after two minutes (hung); stderr:\n%s", args, stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("bench %v: %v", args, err)
	return "", "", 0
}

// TestPluginNotRegularFile: a plugin directory entry that is not a regular
// executable file once its links are resolved (a FIFO, a link to
// /dev/zero, a dangling link, a link loop, a link to a directory) is
// refused without being opened: bench plugins lists it as FAILED naming
// the path and what it is, the others as usual, and a run naming it fails
// that policy alone (exit 3), as a file without an exec bit does. Before,
// computing the SHA-256 opened the FIFO (blocking until a writer came) or
// read /dev/zero without end, and a dangling link was "plugin : stat :
// no such file or directory", without its path.
func TestPluginNotRegularFile(t *testing.T) {
	t.Parallel()
	dir := freshPluginDir(t, "ts")
	entry := func(name string) string { return filepath.Join(dir, "bench-plugin-"+name) }
	if err := syscall.Mkfifo(entry("fifo"), 0o755); err != nil {
		t.Skipf("cannot make the FIFO this test reads from (mkfifo, not supported by this file system?): %v", err)
	}
	target := t.TempDir() // of the link to a directory
	for name, target := range map[string]string{
		"zero":     "/dev/zero",
		"dangling": "gone/bench-plugin-x",
		"loop":     "bench-plugin-loop",
		"dir":      target,
	} {
		if err := os.Symlink(target, entry(name)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"fifo":     ": a named pipe (FIFO), not a regular executable file",
		"zero":     ": a symbolic link to /dev/zero, a character device, not a regular executable file",
		"dangling": ": a dangling symbolic link to gone/bench-plugin-x (which does not exist)",
		"loop":     ": a symbolic link loop (to bench-plugin-loop)",
		"dir":      ": a symbolic link to " + target + ", a directory, not a regular executable file",
	}

	t.Run("plugins", func(t *testing.T) {
		stdout, stderr, code := benchProcess(t, "plugins", "--plugin-dir", dir)
		if code != cli.ExitPolicy {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitPolicy, stderr)
		}
		for name, w := range want {
			if line := "\n" + name + "  FAILED  (" + entry(name) + ")\n  error: plugin " + entry(name) + w; !strings.Contains(stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, stdout)
			}
		}
		// 20: the five and ts of the directory, and the shipped plugins
		// beside bench, found after it, whose ts it shadows.
		if !strings.Contains(stdout, "\nts ") || !strings.Contains(stderr, "5 of 20 plugin(s) FAILED") {
			t.Errorf("ts not listed, or the failures not counted; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		}
	})

	for name, w := range want {
		t.Run("run "+name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "r.json")
			_, stderr, code := benchProcess(t, "--plugin-dir", dir, "--scenario", faultScenario(t, name), "--out", out, "-q")
			if code != cli.ExitPolicy {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitPolicy, stderr)
			}
			if msg := "plugin " + entry(name) + w; !strings.Contains(stderr, msg) {
				t.Errorf("stderr lacks %q:\n%s", msg, stderr)
			}
			f, err := results.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if p := policyByLabel(f, "TS"); p == nil || p.Status != results.StatusOK {
				t.Errorf("TS did not run beside the refused plugin: %+v", p)
			}
			if p := policyByLabel(f, "Broken"); p == nil || p.Status != results.StatusFailed {
				t.Errorf("Broken: %+v, want failed", p)
			}
		})
	}
}

// TestConfigKeys: a key of the --config file must set a flag. A typo
// (step_timeout for step-timeout) or a key of no bench command is refused
// with exit 2, naming the file, the key and its line, and the flag meant;
// so is a list for a flag that takes one value, which kept only its last
// element (at: [10, 20] meant --at 20), a mapping, and two spellings of
// one key. A key of another command's flag is ignored (one config file
// may serve several commands). Before, all of these were ignored without
// a word.
func TestConfigKeys(t *testing.T) {
	t.Parallel()
	run := []string{"run", "--scenario", "quick", "--runs", "2", "--horizon", "10", "-q"}
	for _, tc := range []struct {
		name, file, content string
		args                []string
		want                string // "" when accepted
	}{
		{"underscore", "bench.yaml", "runs: 2\nstep_timeout: 1s\n", run,
			`: unknown key "step_timeout" (line 2): no bench command has a flag --step_timeout; did you mean --step-timeout?`},
		{"typo", "bench.yaml", "horizn: 10\n", run, `: unknown key "horizn" (line 1): no bench command has a flag --horizn; did you mean --horizon?`},
		{"no such flag", "bench.yaml", "frobnicate: 1\n", run, `: unknown key "frobnicate" (line 1): no bench command has a flag --frobnicate`},
		{"shorthand", "bench.yaml", "q: true\n", run, `: unknown key "q" (line 1): no bench command has a flag --q; did you mean --quiet (keys are flag names, not shorthands)?`},
		{"another command's typo", "bench.yaml", "titel: Mine\n", []string{"scenarios"},
			`: unknown key "titel" (line 1): no bench command has a flag --titel; did you mean --title (a flag of bench report)?`},
		{"a list for --at", "bench.yaml", "at: [10, 20]\n", run, `: key "at" (line 1): a list ([10 20]), but --at takes one value`},
		{"a list for --runs", "bench.yaml", "runs: [1, 2]\n", run, `: key "runs" (line 1): a list ([1 2]), but --runs takes one value`},
		{"a mapping", "bench.yaml", "seed: {value: 3}\n", run, `: key "seed" (line 1): a mapping (map[value:3]), but --seed takes a value`},
		{"two spellings", "bench.yaml", "runs: 2\nRuns: 3\n", run, `: key "Runs" (line 2) repeats key "runs" (line 1): keys are case-insensitive`},
		{"config in a config", "bench.yaml", "config: other.yaml\n", run, `: key "config" (line 1): --config cannot be set in a config file`},
		{"JSON", "bench.json", `{"runs": 2, "step_timeout": "1s"}`, run, `: unknown key "step_timeout": no bench command has a flag --step_timeout; did you mean --step-timeout?`},
		{"another command's flag", "bench.yaml", "title: Mine\nout: all.json\nrule: [handshake]\nrequire-same: true\n", []string{"scenarios"}, ""},
		{"a list for a list flag", "bench.yaml", "sandbox-read: [/opt/a, /opt/b]\npolicy: [TS]\nwith: ['ts@X']\n", []string{"scenarios"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := writeFile(t, tc.file, tc.content)
			stdout, stderr, code := bench(t, append([]string{"--config", cfg}, tc.args...)...)
			if tc.want == "" {
				if code != 0 {
					t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
				}
				return
			}
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			if want := "bench: config " + cfg + tc.want; !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
			if stdout != "" {
				t.Errorf("it ran despite the refused config:\n%s", stdout)
			}
		})
	}
}

// TestLabelNotUTF8: a --with spec (its label above all) that is not valid
// UTF-8 is refused before anything runs, with exit 2, naming the flag and
// the bytes, escaped; so is a scenario file holding such a label. Before,
// the label was written to the results file as U+FFFD, so that --resume
// no longer found it and appended a second policy of that label, and
// bench gate refused the file.
func TestLabelNotUTF8(t *testing.T) {
	t.Parallel()
	scen := writeFile(t, "latin1.yaml", "environment: {means: [1, 0], noise_sd: 1}\nhorizon: 10\nruns: 2\npolicies: [{plugin: ts, label: \"Caf\xe9\"}]\n")
	quick := []string{"--scenario", "quick", "--runs", "2", "--horizon", "10", "-q", "--out", "OUT"}
	for _, tc := range []struct {
		name string
		args []string // OUT is replaced by a path in a directory of the case's own
		want string
	}{
		{"run", append([]string{"--with", "ts:inflation=2@Caf\xe9 x2"}, quick...),
			`--with "ts:inflation=2@Caf\xe9 x2": not valid UTF-8 (the bytes \xe9 at byte 18)`},
		{"run subcommand", append([]string{"run", "--with", "ts@\xff\xfe"}, quick...),
			`--with "ts@\xff\xfe": not valid UTF-8 (the bytes \xff at byte 3, \xfe at byte 4)`},
		{"paper", []string{"paper", "--out", "OUT", "--runs", "2", "--horizon", "10", "-q", "--with", "ts@\xff"},
			`--with "ts@\xff": not valid UTF-8 (the bytes \xff at byte 3)`},
		{"a parameter", append([]string{"--with", "ts:inflation=\xff"}, quick...), `--with "ts:inflation=\xff": not valid UTF-8`},
		{"scenario file", []string{"--scenario", scen, "-q", "--out", "OUT"}, "scenario " + scen + ": invalid YAML: invalid trailing UTF-8 octet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			stdout, stderr, code := bench(t, args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if stdout != "" {
				t.Errorf("it ran:\n%s", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// TestOutputDirChecked: an output whose directory is missing, is not a
// directory or cannot be written is refused before anything runs, with
// exit 2 naming the flag and the path: a run's --out, --save-baseline and
// --plot DIR, bench paper --out DIR, bench merge --out, bench report
// --out, bench plot --out DIR. A directory output (created if missing)
// must not be another file, and its nearest existing ancestor must be a
// writable directory. Before, a run found out only at its end.
func TestOutputDirChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writeFile(t, "a-file", "x")
	missing := filepath.Join(dir, "no", "such")
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	none := filepath.Join(dir, "none.json") // an input that does not exist: the check comes first
	run := []string{"--scenario", "quick", "--runs", "2", "--horizon", "10", "-q"}
	plus := func(base []string, extra ...string) []string { return append(append([]string{}, base...), extra...) }
	type tc struct {
		name string
		args []string
		want string
	}
	cases := []tc{
		{"run --out, missing directory", plus(run, "--out", missing+"/r.json"), "--out " + missing + "/r.json: no directory to write in: directory " + missing + " does not exist"},
		{"run --out, under a file", plus(run, "--out", file+"/r.json"), "--out " + file + "/r.json: no directory to write in: " + file + " is not a directory (it is a regular file)"},
		{"run subcommand", plus(append([]string{"run"}, run...), "--out", missing+"/r.json"), "--out " + missing + "/r.json: no directory to write in"},
		{"--save-baseline", plus(run, "--save-baseline", missing+"/b.json"), "--save-baseline " + missing + "/b.json: no directory to write in: directory " + missing + " does not exist"},
		{"--plot under a file", plus(run, "--plot", file+"/figs/more"), "--plot " + file + "/figs/more: no directory to write in: " + file + " is not a directory (it is a regular file)"},
		{"--plot is a file", plus(run, "--plot", file), "--plot " + file + ": no directory to write in: it is a regular file, not a directory"},
		{"paper --out under a file", []string{"paper", "--runs", "2", "--horizon", "10", "-q", "--out", file + "/paper"}, "--out " + file + "/paper: no directory to write in: " + file + " is not a directory"},
		{"paper --out is a file", []string{"paper", "--runs", "2", "--horizon", "10", "-q", "--out", file}, "--out " + file + ": no directory to write in: it is a regular file, not a directory"},
		{"merge --out", []string{"merge", none, "--out", missing + "/m.json"}, "--out " + missing + "/m.json: no directory to write in: directory " + missing + " does not exist"},
		{"report --out", []string{"report", none, "--out", missing + "/r.html"}, "--out " + missing + "/r.html: no directory to write in: directory " + missing + " does not exist"},
		{"plot --out", []string{"plot", none, "--out", file + "/figs"}, "--out " + file + "/figs: no directory to write in: " + file + " is not a directory"},
	}
	if os.Geteuid() != 0 { // root may write anywhere
		cases = append(cases,
			tc{"run --out, read-only directory", plus(run, "--out", readOnly+"/r.json"), "--out " + readOnly + "/r.json: no directory to write in: cannot create files in directory " + readOnly + ": permission denied"},
			tc{"paper --out, read-only ancestor", []string{"paper", "--runs", "2", "--horizon", "10", "-q", "--out", readOnly + "/a/b"}, "cannot create files in directory " + readOnly + ": permission denied"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := bench(t, tc.args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			if !strings.Contains(stderr, "bench: "+tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if stdout != "" {
				t.Errorf("it ran:\n%s", stdout)
			}
		})
	}
	// What stays accepted: a file in an existing directory, a directory
	// output created below an existing one.
	t.Run("accepted", func(t *testing.T) {
		ok := t.TempDir()
		outs := []string{filepath.Join(ok, "r.json"), filepath.Join(ok, "b.json"), filepath.Join(ok, "figs", "new")}
		if _, stderr, code := bench(t, plus(run, "--out", outs[0], "--save-baseline", outs[1], "--plot", outs[2])...); code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		for _, p := range outs {
			if _, err := os.Stat(p); err != nil {
				t.Error(err)
			}
		}
	})
}
