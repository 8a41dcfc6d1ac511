package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// paperExperiments are the experiments bench paper writes, one results
// file, LaTeX table and set of figures each, in the order index.html
// shows them.
var paperExperiments = []string{"two_arm", "three_arm", "ten_arm", "failure_mode", "obd", "movielens",
	"remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"}

// TestNewUserJourney is issue 25's "done when", end to end, as a new user
// would do it: bench installed with one command (go install ./cmd/..., what
// go install .../cmd/...@latest does), a Go plugin (examples/ucb1) built
// from a module of its own into a plugin directory of the user's, a Python
// plugin (the one docs/plugin-python.md shows) in another directory of the
// user's, started by `#!/usr/bin/env python3` from a venv made with
// --system-site-packages that has the SDK; then the installed bench runs
// both beside the shipped plugins on the whole suite (bench paper --with,
// one found through --plugin-dir, the other through BENCH_PLUGIN_PATH) and
// writes a report with the distributions, the figures, the overall table,
// the mean ranks and the LaTeX tables.
func TestNewUserJourney(t *testing.T) {
	skipShort(t, "a new user's journey: go install, a Go and a Python plugin of the user's, bench paper --with both")
	t.Parallel()
	const python = "/usr/bin/python3"
	if out, err := combinedOutput(t, exec.Command(python, "-c", "import grpc, google.protobuf, numpy, venv, ensurepip")); err != nil {
		t.Skipf("the user's Python plugin needs %s with python3-grpcio, python3-protobuf, python3-numpy and python3-venv (.ci/run installs them): %v\n%s",
			python, err, tail(string(out), 3))
	}
	root := repoRoot(t)
	home := t.TempDir()

	// 1. Install bench and the shipped plugins with one command: the
	// go install ./cmd/... that TestInstall checks (goInstalled).
	gobin := goInstalled(t)
	bench := filepath.Join(gobin, "bench")

	// 2. A Go plugin in a module and a plugin directory of the user's: the
	// complete example, its replace pointed at this checkout (the clone
	// the guide builds against until the module is published).
	src := filepath.Join(home, "src", "ucb1")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go.mod", "go.sum", "main.go", "ucb1.go"} {
		data, err := os.ReadFile(filepath.Join(root, "examples", "ucb1", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goPlugins := filepath.Join(home, "bench-plugins")
	goCmd(t, src, nil, "mod", "edit", "-replace", "github.com/regretbench/regretbench="+root)
	goCmd(t, src, nil, "build", "-o", filepath.Join(goPlugins, "bench-plugin-ucb1-example"), ".")

	// 3. A Python plugin in another directory of the user's, and a venv
	// that sees the system's numpy and grpc, with the SDK installed, as
	// docs/plugin-python.md says.
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
	page, err := os.ReadFile(filepath.Join(root, "docs", "plugin-python.md"))
	if err != nil {
		t.Fatal(err)
	}
	py := regexp.MustCompile("(?ms)^```python\\n(.*?)^```").FindSubmatch(page)
	if py == nil || !bytes.HasPrefix(py[1], []byte("#!/usr/bin/env python3\n")) {
		t.Fatal("docs/plugin-python.md shows no Python plugin starting with #!/usr/bin/env python3")
	}
	pyPlugins := filepath.Join(home, "py-plugins")
	if err := os.MkdirAll(pyPlugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pyPlugins, "bench-plugin-epsgreedy"), py[1], 0o755); err != nil {
		t.Fatal(err)
	}

	// 4. The whole suite, at a small scale, with both beside the shipped
	// plugins: the venv activated (its bin first on PATH), the installed
	// bench after it, nothing of the tests' environment.
	out := filepath.Join(home, "paper")
	var env []string
	for _, kv := range installEnv("HOME="+home, "PATH="+filepath.Join(venv, "bin")+":"+gobin+":/usr/local/bin:/usr/bin:/bin",
		"BENCH_PLUGIN_PATH="+pyPlugins) {
		if !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
			env = append(env, kv)
		}
	}
	stdout, stderr, code := runInstalled(t, env, bench, "--plugin-dir", goPlugins, "paper", "--runs", "4", "--horizon", "120",
		"--with", "ucb1-example", "--with", "epsgreedy@eps-greedy", "--out", out)
	if code != 0 {
		t.Fatalf("bench paper --with ucb1-example --with epsgreedy: exit %d\n%s\n%s", code, tail(stdout, 20), tail(stderr, 30))
	}
	if !strings.Contains(stdout, "Comparison across 9 scenarios") || !strings.Contains(stdout, "Mean ranks across experiments") {
		t.Errorf("stdout lacks the comparison or the mean ranks across the experiments:\n%s", stdout)
	}

	// Each experiment: its results with every policy's distribution, the
	// user's two plugins from the user's directories and the shipped ones
	// from beside bench, its figures and its LaTeX tables.
	pluginFile := map[string]string{
		"ucb1-example": filepath.Join(goPlugins, "bench-plugin-ucb1-example"),
		"eps-greedy":   filepath.Join(pyPlugins, "bench-plugin-epsgreedy"),
		"TS":           filepath.Join(gobin, "bench-plugin-ts"),
		"ReMax":        filepath.Join(gobin, "bench-plugin-remax"),
	}
	for _, name := range paperExperiments {
		f, err := results.ReadFile(filepath.Join(out, name+".json"))
		if err != nil {
			t.Errorf("%s.json: %v", name, err)
			continue
		}
		for label, file := range pluginFile {
			p := f.Policy(label)
			if p == nil || p.Status != results.StatusOK || p.PluginSHA256 != fileSHA256(t, file) {
				t.Errorf("%s.json: %s is %+v; want it ran ok from %s", name, label, p, file)
			}
		}
		for _, p := range f.Policies {
			if d := p.Distribution; d == nil || d.Regret == nil || d.Regret.Argmax >= 4 || d.Regret.Median > d.Regret.Max {
				t.Errorf("%s.json: %s has no distribution.regret of its 4 replications: %+v", name, p.Label, d)
			}
		}
		for _, fig := range []string{"_regret.png", "_regret.svg", "_regret_distribution.png", "_regret_distribution.svg"} {
			checkPNGOrSVG(t, filepath.Join(out, name+fig))
		}
		tex, err := os.ReadFile(filepath.Join(out, name+".tex"))
		if err != nil {
			t.Errorf("%s.tex: %v", name, err)
			continue
		}
		for _, want := range []string{`\toprule`, `\bottomrule`, "% Comparison in " + name, "ucb1-example & ", "eps-greedy & "} {
			if !strings.Contains(string(tex), want) {
				t.Errorf("%s.tex lacks %q:\n%s", name, want, tex)
			}
		}
		if n := strings.Count(string(tex), `\begin{tabular}`); n != 2 {
			t.Errorf("%s.tex holds %d tables, want the regret table and the comparison", name, n)
		}
	}
	checkPNGOrSVG(t, filepath.Join(out, "mean_ranks.png"))
	checkPNGOrSVG(t, filepath.Join(out, "mean_ranks.svg"))
	if tex, err := os.ReadFile(filepath.Join(out, "comparison.tex")); err != nil || !strings.Contains(string(tex), `\begin{tabular}`) {
		t.Errorf("comparison.tex: %v, no table", err)
	}

	// index.html: the overall table (a row per scenario run and policy,
	// the user's included), the mean ranks, and every experiment's
	// distribution table and figures.
	raw, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	index := string(raw)
	for _, want := range []string{`id="mean-ranks"`, `id="mean-ranks-fig"`, `<h2>Comparison across 9 experiments</h2>`} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	summary := ""
	if i := strings.Index(index, `id="summary-table"`); i >= 0 {
		summary = index[i:]
		if j := strings.Index(summary, "</table>"); j >= 0 {
			summary = summary[:j]
		}
	}
	// In the paper's order, each scenario its own rows: a sweep's rows
	// shared with its base instance are the base's (issue 34).
	for _, run := range []string{"two_arm", "three_arm", "ten_arm", "failure_mode", "obd", "movielens"} {
		for _, label := range []string{"TS", "ucb1-example", "eps-greedy"} {
			if want := `<th scope="row">` + run + `</th><td>` + label + `</td>`; !strings.Contains(summary, want) {
				t.Errorf("index.html's summary table lacks %s", want)
			}
		}
	}
	for i, name := range paperExperiments {
		id := "exp-" + strconv.Itoa(i+1) + "-" + name
		for _, want := range []string{`id="` + id + `-table-distribution"`, `id="` + id + `-fig-regret_distribution"`, `id="` + id + `-fig-regret"`} {
			if !strings.Contains(index, want) {
				t.Errorf("index.html lacks %s", want)
			}
		}
	}
}

// goCmd runs the go command in dir, with extra environment, and fails the
// test if it fails.
func goCmd(t *testing.T, dir string, extra []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extra...)
	if out, err := combinedOutput(t, cmd); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// checkPNGOrSVG fails the test unless path is a PNG or an SVG image, as
// its extension says.
func checkPNGOrSVG(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	switch filepath.Ext(path) {
	case ".png":
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s is not a PNG image", path)
		}
	case ".svg":
		if !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("%s is not an SVG image", path)
		}
	}
}
