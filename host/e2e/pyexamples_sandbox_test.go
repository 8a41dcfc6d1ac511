package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// TestPythonExamplesDefaultSandbox: the shipped Python examples run from a
// clone, as docs/plugin-python.md says, under the default sandbox and with
// no --sandbox-read: examples/python links each one to its file in
// sdk/python, beside the SDK's package, and a plugin may read the
// directory its file really lies in. Teeth: a copy of the example that
// names sdk/python by its absolute path instead (the old layout's reach
// out of the plugin's own directory) fails under the default sandbox and
// runs with --sandbox off, so the examples pass because of where they
// lie, not because the sandbox lets them read the checkout.
func TestPythonExamplesDefaultSandbox(t *testing.T) {
	skipShort(t, "runs of the Python examples under the default sandbox")
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skipf("the Python examples run under %s, which is missing: %v", python, err)
	}
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf, numpy").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import grpc, protobuf and numpy (install Debian's python3-grpcio, python3-protobuf and python3-numpy): %s",
			python, strings.TrimSpace(lastLine(string(out))))
	}
	root := repoRoot(t)
	sdk := filepath.Join(root, "sdk", "python")
	examples := filepath.Join(root, "examples", "python")
	scen := func(plugins ...string) string {
		var b strings.Builder
		b.WriteString("name: pyexamples\nenvironment: {means: [0.5, 0.2, 0.45], noise_sd: 0.7}\nhorizon: 200\nruns: 8\nseed: 5\npolicies:\n")
		for _, p := range plugins {
			b.WriteString("  - {plugin: " + p + "}\n")
		}
		return writeFile(t, "pyexamples.yaml", b.String())
	}

	t.Run("examples", func(t *testing.T) {
		names, err := filepath.Glob(filepath.Join(examples, "bench-plugin-*"))
		if err != nil || len(names) == 0 {
			t.Fatalf("no Python examples in %s: %v", examples, err)
		}
		// The contextual examples play only contextual scenarios: they
		// run on a shipped dataset, the others on a context-free
		// scenario.
		contextual := map[string]bool{"linucbnp": true}
		var plugins, ctxPlugins []string
		for _, n := range names {
			name := strings.TrimPrefix(filepath.Base(n), "bench-plugin-")
			if contextual[name] {
				ctxPlugins = append(ctxPlugins, name)
			} else {
				plugins = append(plugins, name)
			}
		}
		ctxScen := "name: pyexamples_ctx\ncontext: {dataset: iris}\nhorizon: 100\nruns: 8\nseed: 5\npolicies:\n"
		for _, p := range ctxPlugins {
			ctxScen += "  - {plugin: " + p + "}\n"
		}
		for _, c := range []struct {
			scen    string
			plugins []string
		}{{scen(plugins...), plugins}, {writeFile(t, "pyexamples_ctx.yaml", ctxScen), ctxPlugins}} {
			out := filepath.Join(t.TempDir(), "out.json")
			stdout, stderr, code := bench(t, "--plugin-dir", examples, "run", "--scenario", c.scen, "--out", out)
			if code != cli.ExitOK {
				t.Fatalf("bench --plugin-dir examples/python run (default sandbox, no --sandbox-read): exit %d, want 0\n%s\n%s", code, stdout, stderr)
			}
			f := readResults(t, out)
			if len(f.Policies) != len(c.plugins) {
				t.Fatalf("%d policies in the results, want %d (%v)", len(f.Policies), len(c.plugins), c.plugins)
			}
			for _, p := range f.Policies {
				if p.Status != results.StatusOK || len(p.Final["regret"]) != 8 {
					t.Errorf("%s: status %q, %d final values, error %q; want ok and 8", p.Label, p.Status, len(p.Final["regret"]), p.Error)
				}
				if p.Sandbox == "" || p.Sandbox == "off" {
					t.Errorf("%s ran under sandbox %q, want the default confinement", p.Label, p.Sandbox)
				}
			}
		}
	})

	t.Run("teeth", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join(examples, "bench-plugin-epsgreedy"))
		if err != nil {
			t.Fatal(err)
		}
		const line = "sys.path.append(os.path.dirname(os.path.realpath(__file__)))"
		if !strings.Contains(string(src), line) {
			t.Fatalf("bench-plugin-epsgreedy no longer holds %q: update this test", line)
		}
		body := strings.Replace(string(src), line, "sys.path.append("+pyQuote(sdk)+")", 1)
		dir := filepath.Join(t.TempDir(), "plugins")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bench-plugin-epsabs"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		s := scen("epsabs")
		stdout, stderr, code := bench(t, "--plugin-dir", dir, "run", "--scenario", s)
		if code == cli.ExitOK || !strings.Contains(stdout+stderr, "regretbench") {
			t.Errorf("a copy reading sdk/python from outside its own directory: exit %d under the default sandbox, want a failure to import regretbench\n%s\n%s", code, stdout, stderr)
		}
		stdout, stderr, code = bench(t, "--plugin-dir", dir, "run", "--sandbox", "off", "--scenario", s)
		if code != cli.ExitOK {
			t.Errorf("the same copy with --sandbox off: exit %d, want 0 (the copy itself must work)\n%s\n%s", code, stdout, stderr)
		}
	})
}

// pyQuote is s as a Python string literal.
func pyQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
