package e2e_test

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// contextualSection is the title of the section of docs/plugin-go.md and
// docs/plugin-python.md that writes a contextual plugin.
const contextualSection = "A contextual policy"

// TestContextualGuide runs both sections verbatim, so TestDocCommands
// does not run their bench commands without the plugins they build.
func init() {
	for _, page := range []string{"docs/plugin-go.md", "docs/plugin-python.md"} {
		docCommandSkip[page+"#"+contextualSection] = "TestContextualGuide runs this section verbatim: " +
			"the plugin it writes into ~/bench-plugins, bench conform on it, and bench run on contextual_iris"
	}
}

// guideScenario is the shipped scenario both sections run their plugin on.
const guideScenario = "contextual_iris"

// contextualBin is binDir, where bench has the shipped plugins beside it
// as make build lays them out, after checking that it has every plugin
// guideScenario names: the shipped contextual baselines that the guides
// run their plugin beside.
func contextualBin(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "scenarios", guideScenario+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`\{plugin: ([a-z0-9_-]+)`).FindAllStringSubmatch(string(raw), -1)
	if len(names) < 2 {
		t.Fatalf("scenarios/%s.yaml: found %d plugins; the guides run theirs beside the shipped baselines", guideScenario, len(names))
	}
	for _, m := range names {
		if _, err := os.Stat(filepath.Join(binDir, "plugins", "bench-plugin-"+m[1])); err != nil {
			t.Fatalf("%s names plugin %s, which TestMain did not build beside bench: %v", guideScenario, m[1], err)
		}
	}
	return binDir
}

// guideShell runs a section's shell block with bash -euo pipefail in dir
// with env, and fails the test with its output when it fails.
func guideShell(t *testing.T, dir, script string, env []string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	out, err := combinedOutput(t, cmd)
	if err != nil {
		t.Fatalf("the guide's commands failed: %v\n%s\n%s", err, script, out)
	}
	return string(out)
}

// contextualRules are bench conform's contextual rules, each of which a
// contextual-only plugin must pass over every transport.
var contextualRules = []string{"contextual-arms", "contextual-deterministic", "contextual-batch-split", "contextual-only"}

// checkContextualConform checks the output of bench conform -v on a
// contextual-only plugin: every contextual rule ran and passed over each
// transport, the context-free rules were skipped for the reason the
// guides give, and nothing failed.
func checkContextualConform(t *testing.T, out string) {
	t.Helper()
	if !regexp.MustCompile(`(?m)^[1-9][0-9]* passed, 0 failed `).MatchString(out) {
		t.Errorf("bench conform: not every rule passed:\n%s", out)
	}
	for _, rule := range contextualRules {
		for _, tr := range []string{"socket", "grpc", "grpc-unary"} {
			if want := "PASS " + rule + "/" + tr + "\n"; !strings.Contains(out, want) {
				t.Errorf("bench conform -v does not say %q: the contextual rule did not run, or failed:\n%s", want, out)
			}
		}
	}
	if want := "SKIP valid-arms/socket: the plugin plays only contextual sessions"; !strings.Contains(out, want) {
		t.Errorf("bench conform -v does not say %q:\n%s", want, out)
	}
}

// checkContextualRun checks the results file of the guide's run: the
// plugin's policy (label) ran ok beside the shipped LinUCB, with a
// pv_loss that is regret/t on the dataset, probabilities in every round
// whose smallest is minProb, and a final regret well below a uniformly
// random policy's, T(1 - 1/K) on a dataset.
func checkContextualRun(t *testing.T, path, label string, minProb float64) {
	t.Helper()
	f := readResults(t, path)
	p := f.Policy(label)
	if p == nil {
		t.Fatalf("%s: no policy %q", path, label)
	}
	if p.Status != results.StatusOK {
		t.Fatalf("%s: %s: status %q (%s)", path, label, p.Status, p.Error)
	}
	if f.Policy("LinUCB") == nil {
		t.Errorf("%s: no shipped LinUCB beside %s", path, label)
	}
	T, K := f.Scenario.Horizon, f.Scenario.Arms
	if f.Scenario.Name != guideScenario || f.Scenario.Runs != 20 || T != 150 || K != 3 {
		t.Errorf("%s: scenario %s, %d runs, T=%d, K=%d; want %s (Iris), 20 runs, T=150, K=3", path, f.Scenario.Name, f.Scenario.Runs, T, K, guideScenario)
	}
	last := len(p.Checkpoints) - 1
	if last < 0 || p.Checkpoints[last] != T || p.PVLoss == nil || len(p.PVLoss.Mean) != len(p.Checkpoints) {
		t.Fatalf("%s: %s: checkpoints %v, pv_loss %+v; want a pv_loss at each checkpoint, the last T=%d", path, label, p.Checkpoints, p.PVLoss, T)
	}
	regret, se := p.Regret.Mean[last], p.Regret.SE[last]
	if pv := p.PVLoss.Mean[last]; math.Abs(pv-regret/float64(T)) > 1e-9 {
		t.Errorf("%s: %s: final pv_loss %v, want regret/T = %v/%d on a dataset", path, label, pv, regret, T)
	}
	uniform := float64(T) * (1 - 1/float64(K))
	if !(regret+4*se < uniform) {
		t.Errorf("%s: %s: final regret %.2f ± %.2f, not below a uniformly random policy's %.0f", path, label, regret, se, uniform)
	}
	rounds := int64(f.Scenario.Runs) * int64(T)
	if pr := p.Probs; pr == nil || pr.Rounds != rounds || pr.Reported != rounds || math.Abs(pr.Min-minProb) > 1e-12 || pr.Mean > 1 {
		t.Errorf("%s: %s: probs %+v; want all %d replication-rounds reported, the smallest %v", path, label, pr, rounds, minProb)
	}
	t.Logf("%s on %s: final regret %.2f ± %.2f (uniform: %.0f), pv_loss %.3f, probs %+v", label, guideScenario, regret, se, uniform, p.PVLoss.Mean[last], *p.Probs)
}

// TestContextualGuide runs the sections "A contextual policy" of the Go
// and the Python plugin guides verbatim, as a new author would, in a home
// directory of its own, with bench and the shipped contextual baselines
// beside it first on the PATH: the Go section's module against this
// checkout standing in for the clone at ../regretbench (its set-up, its
// two Go files, go test with the conformance kit, the build into
// ~/bench-plugins), and the Python section's plugin saved where it says,
// run from a venv with the SDK as "Python in five minutes" makes it. Each
// plugin must pass bench conform with the contextual rules run, not
// skipped, and play contextual_iris beside the shipped baselines with
// status ok, a pv_loss, its probabilities, and a regret well below a
// uniformly random policy's.
func TestContextualGuide(t *testing.T) {
	skipShort(t, "the contextual sections of docs/plugin-go.md and docs/plugin-python.md, building and running their plugins")
	t.Parallel()
	bin := contextualBin(t)
	root := repoRoot(t)

	t.Run("go", func(t *testing.T) {
		t.Parallel()
		var sh, gofiles []string
		for _, b := range docSection(t, "docs/plugin-go.md", contextualSection) {
			switch b.lang {
			case "sh":
				sh = append(sh, b.text)
			case "go":
				gofiles = append(gofiles, b.text)
			}
		}
		if len(sh) != 2 || len(gofiles) != 2 {
			t.Fatalf("the Go guide's contextual section has %d sh and %d go blocks; this test expects 2 (set-up; build and use) and 2 (main.go, main_test.go)", len(sh), len(gofiles))
		}
		work, home, env := authorWorkspace(t, bin)
		guideShell(t, work, sh[0], env) // mkdir linucb-example && cd, go mod init, go mod edit
		dir := filepath.Join(work, "linucb-example")
		for i, name := range []string{"main.go", "main_test.go"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(gofiles[i]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := guideShell(t, dir, sh[1], env) // go mod tidy, go test, go build, bench conform, bench run
		if st, err := os.Stat(filepath.Join(home, "bench-plugins", "bench-plugin-linucb-example")); err != nil || st.Mode()&0o111 == 0 {
			t.Fatalf("the guide's build left no executable ~/bench-plugins/bench-plugin-linucb-example: %v", err)
		}
		checkContextualConform(t, out)
		checkContextualRun(t, filepath.Join(dir, "iris.json"), "linucb-example", 1)
	})

	t.Run("python", func(t *testing.T) {
		t.Parallel()
		const python = "/usr/bin/python3"
		if out, err := combinedOutput(t, exec.Command(python, "-c", "import grpc, google.protobuf, numpy, venv, ensurepip")); err != nil {
			t.Skipf("the Python guide's plugin needs %s with python3-grpcio, python3-protobuf, python3-numpy and python3-venv (.ci/run installs them): %v\n%s",
				python, err, tail(string(out), 3))
		}
		var sh, py []string
		for _, b := range docSection(t, "docs/plugin-python.md", contextualSection) {
			switch b.lang {
			case "sh":
				sh = append(sh, b.text)
			case "python":
				py = append(py, b.text)
			}
		}
		if len(sh) != 1 || len(py) != 1 {
			t.Fatalf("the Python guide's contextual section has %d sh and %d python blocks; this test expects 1 (chmod, activate, conform, run) and 1 (the plugin)", len(sh), len(py))
		}
		// The venv of "Python in five minutes": ~/rb, seeing Debian's
		// numpy and grpc, with the SDK installed from this checkout,
		// offline.
		home, work := t.TempDir(), t.TempDir()
		venv := filepath.Join(home, "rb")
		if out, err := combinedOutput(t, exec.Command(python, "-m", "venv", "--system-site-packages", venv)); err != nil {
			t.Skipf("cannot make a venv (Debian: python3-venv): %v\n%s", err, out)
		}
		pip := exec.Command(filepath.Join(venv, "bin", "python"), "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
			filepath.Join(root, "sdk", "python"))
		pip.Env = append(os.Environ(), "PIP_NO_INPUT=1", "PIP_DISABLE_PIP_VERSION_CHECK=1")
		if out, err := combinedOutput(t, pip); err != nil {
			t.Fatalf("installing the SDK into the venv, offline: %v\n%s", err, out)
		}
		plugins := filepath.Join(home, "bench-plugins")
		if err := os.MkdirAll(plugins, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(plugins, "bench-plugin-epsridge"), []byte(py[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		// A user's shell: bench first on the PATH, no Python of the
		// tests' environment; the block activates the venv itself.
		var env []string
		for _, kv := range installEnv("HOME="+home, "PATH="+bin+":/usr/local/bin:/usr/bin:/bin") {
			if !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
				env = append(env, kv)
			}
		}
		out := guideShell(t, work, sh[0], env) // chmod +x, activate, bench conform, bench run
		checkContextualConform(t, out)
		// epsridge's default epsilon, 0.05, over K = 3 arms: an explored
		// arm's probability.
		checkContextualRun(t, filepath.Join(work, "iris.json"), "epsridge", 0.05/3)
	})
}
