package e2e_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/plugins/klucb/klucb"
	"github.com/regretbench/regretbench/sdk"
)

// pythonWithGRPC makes sure Debian's /usr/bin/python3, which the Python
// examples' `#!/usr/bin/python3` line names, can import what the Python
// SDK needs (grpc, protobuf, numpy), and puts the SDK's package on
// PYTHONPATH, as a user without `pip install ./sdk/python` would. It skips
// the test, saying what to install, when the interpreter or a module is
// missing.
func pythonWithGRPC(t *testing.T) {
	t.Helper()
	skipShort(t, "runs of the Python examples (examples/python)")
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skipf("the Python examples run under %s, which is missing: %v", python, err)
	}
	out, err := combinedOutput(t, exec.Command(python, "-c", "import grpc, google.protobuf, numpy"))
	if err != nil {
		t.Skipf("%s cannot import grpc, protobuf and numpy (install Debian's python3-grpcio, python3-protobuf and python3-numpy): %s",
			python, strings.TrimSpace(lastLine(string(out))))
	}
	t.Setenv("PYTHONPATH", filepath.Join(repoRoot(t), "sdk", "python"))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// installPython puts a symbolic link to the Python example
// bench-plugin-NAME (klucbpy when no name is given) into dir and returns
// its path. The example, unchanged, finds the SDK beside it in the
// checkout (../../sdk/python from where the link leads).
func installPython(t *testing.T, dir string, name ...string) string {
	t.Helper()
	n := "klucbpy"
	if len(name) > 0 {
		n = name[0]
	}
	dst := filepath.Join(dir, "bench-plugin-"+n)
	if err := os.Symlink(filepath.Join(repoRoot(t), "examples", "python", "bench-plugin-"+n), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// strictPython are the flags that run the Python examples, unchanged,
// under the strict sandbox: they may read the checkout's SDK.
func strictPython(t *testing.T) []string {
	return []string{"--sandbox", "strict", "--sandbox-read", filepath.Join(repoRoot(t), "sdk", "python")}
}

// TestPythonPlugin runs the Python KL-UCB next to its Go twin through the
// CLI: every per-replication final value is bit-identical, under immediate
// feedback and under delayed and batched feedback (protocol 2: the batch
// policy's arrivals against the Go SDK's Observe calls). The Python code
// reproduces Go's operations and Go's math.Log; Go compiles x*y+z without
// fusing on amd64, where this holds exactly (on arm64 Go fuses into FMA).
func TestPythonPlugin(t *testing.T) {
	pythonWithGRPC(t)
	dir := freshPluginDir(t, "klucb")
	installPython(t, dir)
	scen := writeFile(t, "py.yaml", `
name: python
environment: {means: [0.5, 0.2, 0.45, 0.45, 0.1], noise_sd: 0.7}
horizon: 600
runs: 12
seed: 17
policies:
  - {plugin: klucbpy, label: PY}
  - {plugin: klucb, label: GO}
  - {plugin: klucbpy, label: PY c=1.5, params: {c: 1.5}}
  - {plugin: klucb, label: GO c=1.5, params: {c: 1.5}}
  - {plugin: klucbpy, label: PY d=7, feedback: {delay: 7}}
  - {plugin: klucb, label: GO d=7, feedback: {delay: 7}}
  - {plugin: klucbpy, label: PY geo=5, feedback: {delay: {geometric: 5}}}
  - {plugin: klucb, label: GO geo=5, feedback: {delay: {geometric: 5}}}
  - {plugin: klucbpy, label: PY batch=20, feedback: {batch: 20}}
  - {plugin: klucb, label: GO batch=20, feedback: {batch: 20}}
`)
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := bench(t, append([]string{"--plugin-dir", dir, "--scenario", scen, "--out", out, "--quiet"}, strictPython(t)...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Policies) != 10 {
		t.Fatalf("%d policies, want 10", len(f.Policies))
	}
	if reflect.DeepEqual(f.Policies[0].Final, f.Policies[4].Final) {
		t.Errorf("a delay of 7 rounds changes nothing: %v", f.Policies[4].Final["regret"])
	}
	for i := 0; i < len(f.Policies); i += 2 {
		py, gop := f.Policies[i], f.Policies[i+1]
		if len(py.Final["regret"]) != 12 {
			t.Fatalf("%s: %d final regrets, want 12", py.Label, len(py.Final["regret"]))
		}
		if !reflect.DeepEqual(py.Final, gop.Final) {
			t.Errorf("%s and %s differ:\n python %v\n go     %v", py.Label, gop.Label, py.Final["regret"], gop.Final["regret"])
		}
		if py.PluginVersion != "1.0.0" || py.PluginSHA256 != fileSHA256(t, filepath.Join(dir, "bench-plugin-klucbpy")) {
			t.Errorf("%s: identity recorded as version %q sha256 %q", py.Label, py.PluginVersion, py.PluginSHA256)
		}
	}

	t.Run("listed", func(t *testing.T) {
		stdout, stderr, code := bench(t, append([]string{"--plugin-dir", dir, "plugins"}, strictPython(t)...)...)
		if code != 0 || !strings.Contains(stdout, "klucbpy") || !strings.Contains(stdout, "exploration constant") {
			t.Errorf("bench plugins: exit %d\n%s\n%s", code, stdout, stderr)
		}
	})
}

// TestPythonPluginProtocol drives the Python plugin through the SDK client
// with the unary Step as well as the stream, against KL-UCB in process,
// and checks it honours go-plugin's lifecycle: Kill is graceful because
// the controller's Shutdown is served.
func TestPythonPluginProtocol(t *testing.T) {
	pythonWithGRPC(t)
	path := installPython(t, t.TempDir())
	sc, err := scenario.Parse("t.yaml", []byte(`
environment: {means: [0.3, 0.5, 0.45], noise_sd: 1}
horizon: 300
runs: 8
seed: 4
init_pulls: 2
policies: [{plugin: klucbpy, label: K}]
`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(launch engine.Launcher) *results.File {
		t.Helper()
		f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch, Batch: 3})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := run(func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		c, err := client.NewLocal(sdk.Plugin{Name: "klucb", Version: "1.0.0", Params: klucb.Params, New: klucb.New})
		if err != nil {
			return nil, err
		}
		d, err := c.Describe(ctx)
		return &engine.Plugin{Conn: c, Desc: d}, err
	})
	for _, noStream := range []bool{false, true} {
		var logs syncBuffer
		var closeTook time.Duration
		got := run(func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
			c, err := launch.Launch(path, launch.Options{NoStream: noStream, Log: &logs})
			if err != nil {
				return nil, err
			}
			d, err := c.Describe(ctx)
			if err != nil {
				return nil, err
			}
			if d.Name != "klucbpy" || d.ProtocolVersion != client.ProtocolVersion || !d.StepStream ||
				len(d.Params) != 1 || !reflect.DeepEqual(d.Params[0], klucb.Params[0]) {
				t.Errorf("describe: %+v", d)
			}
			return &engine.Plugin{Conn: timedClose{c.Client, &closeTook}, Desc: d}, nil
		})
		if !reflect.DeepEqual(got.Policies[0].Final, want.Policies[0].Final) {
			t.Errorf("noStream=%v: the Python plugin's results differ from KL-UCB in process:\n python %v\n go     %v",
				noStream, got.Policies[0].Final["regret"], want.Policies[0].Final["regret"])
		}
		// go-plugin logs this when Shutdown is not served and it had to
		// wait and then kill the process.
		for _, bad := range []string{"plugin failed to exit gracefully", "Unimplemented"} {
			if strings.Contains(logs.String(), bad) {
				t.Errorf("noStream=%v: go-plugin logged %q:\n%s", noStream, bad, logs.String())
			}
		}
		t.Logf("noStream=%v: Kill took %v", noStream, closeTook)
	}
}

// TestPythonPluginRefusesToRunAlone: run by hand, without the magic
// cookie or with a protocol version it does not speak, the script exits
// non-zero and says why.
func TestPythonPluginRefusesToRunAlone(t *testing.T) {
	pythonWithGRPC(t)
	path := installPython(t, t.TempDir())
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"no cookie", nil, "REGRETBENCH_PLUGIN"},
		{"other version", []string{wire.Handshake.MagicCookieKey + "=" + wire.Handshake.MagicCookieValue,
			"PLUGIN_PROTOCOL_VERSIONS=98,99"}, "protocol versions 98,99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(path)
			cmd.Env = append(withoutCookie(os.Environ()), tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := runLimited(t, cmd)
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
				t.Fatalf("exit: %v, want non-zero\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr.String())
			}
		})
	}
}

func withoutCookie(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, wire.Handshake.MagicCookieKey+"=") && !strings.HasPrefix(e, "PLUGIN_") {
			out = append(out, e)
		}
	}
	return out
}

// timedClose measures how long closing the plugin (go-plugin's Kill) takes.
type timedClose struct {
	*client.Client
	took *time.Duration
}

func (c timedClose) Close() error {
	start := time.Now()
	err := c.Client.Close()
	*c.took = time.Since(start)
	return err
}

// TestPythonExamplesBatchSplit runs the Python SDK's examples through
// bench with the default two sessions and with batches of 3 (a forked
// process per session either way): every replication's results are the
// same, as the SDK's keyed randomness promises (tsnp draws from
// rb.KeyedDraws, epsgreedy from its replica's own Generator).
func TestPythonExamplesBatchSplit(t *testing.T) {
	pythonWithGRPC(t)
	dir := freshPluginDir(t)
	for _, name := range []string{"tsnp", "epsgreedy"} {
		installPython(t, dir, name)
	}
	scen := writeFile(t, "split.yaml", `
name: split
environment: {means: [0.5, 0.2, 0.45, 0.1], noise_sd: 0.7}
horizon: 300
runs: 70
seed: 23
init_pulls: 1
policies:
  - {plugin: tsnp, label: TS}
  - {plugin: epsgreedy, label: EG, params: {epsilon: 0.2}}
`)
	var finals [2][]map[string][]float64
	for i, batch := range []string{"0", "3"} { // 0: bench's default
		out := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"--plugin-dir", dir, "--scenario", scen, "--quiet", "--out", out}, strictPython(t)...)
		if batch != "0" {
			args = append(args, "--batch", batch)
		}
		_, stderr, code := bench(t, args...)
		if code != 0 {
			t.Fatalf("--batch %s: exit %d\n%s", batch, code, stderr)
		}
		f, err := results.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range f.Policies {
			if len(p.Final["regret"]) != 70 {
				t.Fatalf("--batch %s: %s: %d final regrets, want 70", batch, p.Label, len(p.Final["regret"]))
			}
			finals[i] = append(finals[i], p.Final)
		}
	}
	for j, label := range []string{"tsnp", "epsgreedy"} {
		if !reflect.DeepEqual(finals[0][j], finals[1][j]) {
			t.Errorf("%s: results depend on the batch split:\n two sessions %v\n batches of 3 %v",
				label, finals[0][j]["regret"], finals[1][j]["regret"])
		}
	}
}

// TestPythonVenvStrict: a Python plugin whose #! line names a venv made
// with --system-site-packages, with the SDK installed into it, runs under
// the strict sandbox with no flag: the venv's prefix and the system's
// numpy and grpc are readable. Without a way to import the SDK (the same
// script, the venv's interpreter, but the SDK not installed) it fails at
// start, and bench says what the sandbox let it read.
func TestPythonVenvStrict(t *testing.T) {
	pythonWithGRPC(t)
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := combinedOutput(t, exec.Command("/usr/bin/python3", "-m", "venv", "--system-site-packages", venv)); err != nil {
		t.Skipf("cannot make a venv (Debian: python3-venv): %v\n%s", err, out)
	}
	bare := filepath.Join(t.TempDir(), "bare")
	if out, err := combinedOutput(t, exec.Command("/usr/bin/python3", "-m", "venv", "--system-site-packages", bare)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	pip := exec.Command(filepath.Join(venv, "bin", "python"), "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
		filepath.Join(repoRoot(t), "sdk", "python"))
	pip.Env = append(os.Environ(), "PIP_NO_INPUT=1")
	if out, err := combinedOutput(t, pip); err != nil {
		t.Skipf("cannot install the SDK into a venv offline: %v\n%s", err, out)
	}
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "python", "bench-plugin-klucbpy"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\n")
	dir := freshPluginDir(t, "klucb")
	for name, prefix := range map[string]string{"klucbpy": venv, "bare": bare} {
		p := filepath.Join(dir, "bench-plugin-"+name)
		if err := os.WriteFile(p, []byte("#!"+filepath.Join(prefix, "bin", "python")+"\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scen := writeFile(t, "venv.yaml", `
name: venv
environment: {means: [0.5, 0.2, 0.45], noise_sd: 0.7}
horizon: 200
runs: 4
seed: 5
policies:
  - {plugin: klucbpy, label: PY}
  - {plugin: klucb, label: GO}
  - {plugin: bare, label: BARE}
`)
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := bench(t, "--plugin-dir", dir, "--scenario", scen, "--out", out, "--quiet", "--sandbox", "strict")
	if code != cli.ExitPolicy {
		t.Fatalf("exit %d, want %d (BARE fails)\n%s", code, cli.ExitPolicy, stderr)
	}
	f := readResults(t, out)
	py, gop, bareP := policyByLabel(f, "PY"), policyByLabel(f, "GO"), policyByLabel(f, "BARE")
	if py.Status != results.StatusOK || py.Sandbox != "strict" {
		t.Fatalf("PY: %s under %q: %s", py.Status, py.Sandbox, py.Error)
	}
	if !reflect.DeepEqual(py.Final, gop.Final) {
		t.Errorf("the venv's KL-UCB differs from Go's:\n%v\n%v", py.Final["regret"], gop.Final["regret"])
	}
	if bareP.Status == results.StatusOK {
		t.Fatal("BARE ran, but its venv has no SDK")
	}
	for _, want := range []string{"No module named 'regretbench'", "sandbox strict", "--sandbox-read"} {
		if !strings.Contains(bareP.Error, want) {
			t.Errorf("BARE's error lacks %q:\n%s", want, bareP.Error)
		}
	}
}
