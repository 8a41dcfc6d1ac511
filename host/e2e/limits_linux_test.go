package e2e_test

// Limits on every plugin (--limit-*, docs/threat-model.md "Limits"): the
// hog plugin (testdata/hog) takes what its parameters say, run by the
// real bench executable under low limits. Each policy that goes over a
// limit fails with an error naming it, bench exits 3, and the policy that
// stays within them still has its results; with the limits raised, every
// policy runs (teeth: what failed was the limit, not the hog). Both
// mechanisms are tried: a cgroup of each plugin's own (skipped where
// bench may not make one) and rlimits (--limit-by rlimit).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/testbin"
)

var (
	hogOnce sync.Once
	hogDir  string
	hogErr  error
)

// hogPlugins builds the hog once into a plugin directory of its own.
func hogPlugins(t *testing.T) string {
	t.Helper()
	hogOnce.Do(func() {
		hogDir = filepath.Join(binDir, "hog")
		hogErr = testbin.Build(hogDir, testbin.Options{}, testbin.Main{Pkg: "./testdata/hog", Name: "bench-plugin-hog"})
	})
	if hogErr != nil {
		t.Fatal(hogErr)
	}
	return hogDir
}

// hogCase is a policy of the hog scenario: its params, and the words of
// the error it must fail with under the low limits ("" for none).
type hogCase struct {
	label, params, want string
}

// writeHogScenario writes a scenario with a policy per case.
func writeHogScenario(t *testing.T, cases []hogCase) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: hog\nenvironment:\n  family: gaussian\n  means: [0.1, 0.2]\n  noise_sd: 1\nhorizon: 50\nruns: 2\nseed: 1\npolicies:\n")
	for _, c := range cases {
		fmt.Fprintf(&b, "  - {plugin: hog, label: %s, params: {%s}}\n", c.label, c.params)
	}
	path := filepath.Join(t.TempDir(), "hog.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runHog runs the hog scenario with args and checks each policy: failed
// with its case's words in the error, or ok; and the limits recorded,
// enforced by a mechanism starting with by.
func runHog(t *testing.T, cases []hogCase, by string, wantFail bool, args ...string) *results.File {
	t.Helper()
	out := filepath.Join(t.TempDir(), "hog.json")
	args = append([]string{"run", "--plugin-dir", hogPlugins(t), "--scenario", writeHogScenario(t, cases), "--out", out}, args...)
	// Unconfined (--sandbox off), a plugin writes into bench's TMPDIR.
	_, stderr, code := benchEnv(t, []string{"TMPDIR=" + t.TempDir()}, args...)
	if wantFail && code != 3 || !wantFail && code != 0 {
		t.Fatalf("bench %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, map[bool]int{true: 3, false: 0}[wantFail], stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatalf("reading the results: %v\nstderr:\n%s", err, stderr)
	}
	for i, c := range cases {
		p := f.Policies[i]
		if p.Label != c.label {
			t.Fatalf("policy %d is %q, want %q", i, p.Label, c.label)
		}
		if p.Limits == nil || !strings.HasPrefix(p.Limits.By, by) {
			t.Errorf("%s: limits recorded %+v, want them by %s", c.label, p.Limits, by)
		}
		want := c.want
		if !wantFail {
			want = ""
		}
		switch {
		case want == "" && p.Status != results.StatusOK:
			t.Errorf("%s: %s: %s; want it to run within the limits", c.label, p.Status, p.Error)
		case want != "" && p.Status == results.StatusOK:
			t.Errorf("%s: ran; want it to fail with %q", c.label, want)
		case want != "" && !strings.Contains(p.Error, want):
			t.Errorf("%s: error\n%s\nwant it to say %q", c.label, p.Error, want)
		case want != "" && !strings.Contains(stderr, want):
			t.Errorf("%s: stderr does not say %q:\n%s", c.label, want, stderr)
		}
	}
	return f
}

// lowLimits are the low limits of the exceeding runs; highLimits raise
// each above what the hog takes.
var (
	lowLimits  = []string{"--limit-memory", "256MiB", "--limit-tasks", "256", "--limit-files", "1024", "--limit-disk", "32MiB", "--limit-disk-files", "100"}
	highLimits = []string{"--limit-memory", "2GiB", "--limit-tasks", "4096", "--limit-files", "4096", "--limit-disk", "256MiB", "--limit-disk-files", "1000"}
)

// hogCases go over one limit each of lowLimits, and stay within
// highLimits; "hold" keeps a plugin alive until bench's watch of its
// private directory finds it (30 s at most: the watch polls every 0.1 s).
func hogCases(hold int) []hogCase {
	return []hogCase{
		{"within", "mib: 16, procs: 2, threads: 8, files: 16, disk_mib: 1, disk_files: 4", ""},
		{"memory", "mib: 400", "hit the memory limit (256MiB"},
		{"procs", "procs: 100", "hit the tasks limit (256 processes and threads"},
		{"threads", "threads: 300", "hit the tasks limit (256 processes and threads"},
		{"files", "files: 2000", "hit the open-files limit (1024 per process"},
		{"disk", fmt.Sprintf("disk_mib: 40, hold: %d", hold), "hit the disk limit (32MiB"},
		{"diskfiles", fmt.Sprintf("disk_files: 200, hold: %d", hold), "hit the disk-files limit (100"},
		{"bigfile", "file_mib: 40", "hit the disk limit (32MiB"},
	}
}

// byOf is how bench plugins says it enforces the limits with args.
func byOf(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := benchEnv(t, nil, append([]string{"plugins", "--plugin-dir", hogPlugins(t)}, args...)...)
	if code != 0 {
		t.Fatalf("bench plugins: exit %d\n%s", code, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "limits per plugin: "); ok {
			i := strings.Index(rest, "(by ")
			if i < 0 {
				t.Fatalf("bench plugins: no mechanism in %q", line)
			}
			return strings.TrimSuffix(strings.SplitN(rest[i+4:], ")", 2)[0], ")")
		}
	}
	t.Fatalf("bench plugins shows no limits:\n%s", out)
	return ""
}

func TestLimitsPluginsShows(t *testing.T) {
	out, stderr, code := benchEnv(t, nil, append([]string{"plugins", "--plugin-dir", hogPlugins(t), "--limit-by", "rlimit"}, append(highLimits, "--limit-memory", "4GiB")...)...)
	if code != 0 {
		t.Fatalf("bench plugins: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"limits per plugin: memory (address space) 4GiB", "open files 4096", "disk 256MiB", "disk files 1000", "(by rlimit)"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench plugins does not say %q:\n%s", want, out)
		}
	}
	// Below the floor of an address-space limit: refused, naming it.
	_, stderr, code = benchEnv(t, nil, "plugins", "--plugin-dir", hogPlugins(t), "--limit-by", "rlimit", "--limit-memory", "1GiB")
	if code != 2 || !strings.Contains(stderr, "--limit-memory 1GiB") {
		t.Errorf("--limit-by rlimit --limit-memory 1GiB: exit %d, stderr %q; want exit 2 naming the flag", code, stderr)
	}
	_, stderr, code = benchEnv(t, nil, "plugins", "--plugin-dir", hogPlugins(t), "--limit-tasks", "many")
	if code != 2 || !strings.Contains(stderr, "--limit-tasks") {
		t.Errorf("--limit-tasks many: exit %d, stderr %q; want exit 2 naming the flag", code, stderr)
	}
}

func TestLimitsCgroup(t *testing.T) {
	// Not in parallel (it watches every bench's cgroups), so under -short
	// it would hold back the whole package for half a minute and more.
	skipShort(t, "the --limit-* flags enforced by a cgroup of each plugin's own, with the hog plugin over every limit")
	by := byOf(t)
	if !strings.HasPrefix(by, "cgroup") {
		t.Skipf("bench may not make cgroups here (limits by %s)", by)
	}
	before := benchCgroups()
	for _, level := range []string{"default", "off"} {
		t.Run(level, func(t *testing.T) {
			args := sandboxArgs(t, level)
			// Unconfined too, a plugin's TMPDIR is its private
			// directory (bench's, removed after it), which the disk
			// watch sees: every case, at both levels.
			cases := hogCases(30)
			f := runHog(t, cases, "cgroup", true, append(args, lowLimits...)...)
			if l := f.Policies[0].Limits; l.Memory != "256MiB" || l.Tasks != 256 || l.Files != 1024 || l.Disk != "32MiB" || l.DiskFiles != 100 {
				t.Errorf("limits recorded %+v, want those of the flags", l)
			}
			runHog(t, hogCases(0), "cgroup", false, append(args, highLimits...)...)
		})
	}
	leftover(t, before)
}

func TestLimitsRlimit(t *testing.T) {
	low := append([]string{"--limit-by", "rlimit"}, lowLimits...)
	low[2+1] = "3GiB" // the floor of an address-space limit
	cases := hogCases(30)
	// Address space, not memory: reserved, never touched.
	cases[1] = hogCase{"memory", "vmib: 4096", "hit the memory limit (3GiB of address space"}
	// Tasks: RLIMIT_NPROC only in a user namespace and not as root.
	limitedTasks := os.Getuid() != 0
	if !limitedTasks {
		cases = append(cases[:2], cases[4:]...)
	}
	f := runHog(t, cases, "rlimit", true, low...)
	l := f.Policies[0].Limits
	if l.Memory != "3GiB" || l.Files != 1024 || l.Disk != "32MiB" || l.DiskFiles != 100 {
		t.Errorf("limits recorded %+v, want those of the flags", l)
	}
	if !limitedTasks && (l.Tasks != 0 || len(l.Unlimited) == 0 || !strings.Contains(l.Unlimited[0], "tasks not limited")) {
		t.Errorf("limits recorded %+v: as root by rlimit, tasks are not limited, and the file must say so", l)
	}
	high := append([]string{"--limit-by", "rlimit"}, highLimits...)
	high[2+1] = "8GiB"
	runHog(t, []hogCase{hogCases(0)[0], {"memory", "vmib: 4096", ""}}, "rlimit", false, high...)
}

// benchCgroups are the cgroups bench processes made (regretbench-PID-N)
// under the pids and memory hierarchies, each with its bench's pid.
func benchCgroups() map[string]string {
	m := map[string]string{}
	for _, dir := range []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), "regretbench-") {
				m[p] = strings.SplitN(strings.TrimPrefix(d.Name(), "regretbench-"), "-", 2)[0]
				return filepath.SkipDir
			}
			return nil
		})
	}
	return m
}

// leftover fails when a cgroup of a bench that has exited is left, but
// for those already there before (before: benchCgroups at the test's
// start): this test's benches, not those of other runs on the machine
// (a bench killed by SIGKILL cannot remove its own).
func leftover(t *testing.T, before map[string]string) {
	t.Helper()
	for p, pid := range benchCgroups() {
		if _, ok := before[p]; ok {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); err != nil {
			t.Errorf("cgroup %s is left behind by bench %s, which has exited", p, pid)
		}
	}
}

// TestLimitsRlimitTasksUnprivileged: run by a user other than root, under
// the strict sandbox's user namespace, RLIMIT_NPROC bounds the plugin's
// tasks (counting only the namespace's own): the hog that starts too many
// processes, or threads, fails naming the tasks limit. Root runs bench as
// nobody (setpriv); skipped where the test is not root.
func TestLimitsRlimitTasksUnprivileged(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if os.Getuid() != 0 || err != nil {
		t.Skipf("needs root and setpriv to run bench as nobody (uid %d, %v)", os.Getuid(), err)
	}
	// Not under t.TempDir, whose parents nobody may not enter.
	dir, err := os.MkdirTemp("", "regretbench-limits-nobody")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	const nobody = 65534
	copyExe := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	plugins := filepath.Join(dir, "plugins")
	if err := os.Mkdir(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	copyExe(filepath.Join(binDir, "bench"), filepath.Join(dir, "bench"))
	copyExe(filepath.Join(hogPlugins(t), "bench-plugin-hog"), filepath.Join(plugins, "bench-plugin-hog"))
	cases := []hogCase{
		{"within", "procs: 2, threads: 8", ""},
		{"procs", "procs: 100", "hit the tasks limit (256 processes and threads"},
		{"threads", "threads: 300", "hit the tasks limit (256 processes and threads"},
	}
	scen := writeHogScenario(t, cases)
	b, err := os.ReadFile(scen)
	if err != nil {
		t.Fatal(err)
	}
	scen = filepath.Join(dir, "hog.yaml")
	if err := os.WriteFile(scen, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, plugins} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME="+dir, "TMPDIR="+dir,
		filepath.Join(dir, "bench"), "run", "--plugin-dir", plugins, "--scenario", scen, "--out", out, "--start-timeout", "2m", "--limit-by", "rlimit")
	stderr, err := combinedOutput(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("bench as nobody did not end within 5 minutes:\n%s", stderr)
	}
	f, rerr := results.ReadFile(out)
	if rerr != nil {
		t.Fatalf("bench as nobody: %v, no results (%v):\n%s", err, rerr, stderr)
	}
	if l := f.Policies[0].Limits; l == nil || l.Tasks == 0 {
		t.Skipf("tasks are not limited for nobody here (no user namespace for an unprivileged user?): %+v", l)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("bench as nobody: %v, want exit 3:\n%s", err, stderr)
	}
	for i, c := range cases {
		p := f.Policies[i]
		switch {
		case c.want == "" && p.Status != results.StatusOK:
			t.Errorf("%s: %s: %s; want it to run", c.label, p.Status, p.Error)
		case c.want != "" && !strings.Contains(p.Error, c.want):
			t.Errorf("%s: error %q, want it to say %q", c.label, p.Error, c.want)
		}
	}
}
