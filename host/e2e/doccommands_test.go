package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docCommand is one bench command a documentation page shows in a shell
// block, or one of its set-up lines (docSetupLine).
type docCommand struct {
	page, section string
	line          int      // 1-based line in page
	env           []string // the ". venv/bin/activate" lines of its block before it
	cmd           string   // as written, "$ " and any comment removed
	setup         bool     // a set-up line: run once, where it stands
}

// docShellLangs are the fence languages whose lines are commands (an
// untagged block holds commands or output; only its lines that start with
// bench, or "$ bench", are taken).
var docShellLangs = map[string]bool{"": true, "sh": true, "shell": true, "bash": true, "console": true}

// docSetupLine reports whether a non-bench line of a shell block is set-up
// that TestDocCommands runs before the block's later bench commands: it
// stays within the test's home and work directories. Installing packages
// (apt-get, go install, make install) and changing PATH are not run: the
// test provides bench and its plugins itself.
func docSetupLine(line string) bool {
	for _, p := range []string{"mkdir ", ". ", "/usr/bin/python3 -m venv ", "~/rb/bin/python -m pip "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

var docFence = regexp.MustCompile("^ *```(\\w*)")

// docBenchCommand reports whether line runs bench: its first word, after
// any VAR=value assignments, is bench or a path to it.
func docBenchCommand(line string) bool {
	for _, w := range strings.Fields(line) {
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // BENCH_PLUGIN_PATH=... bench
		}
		return w == "bench" || strings.HasSuffix(w, "/bench")
	}
	return false
}

// docCommands returns every bench command in the shell blocks of page.
func docCommands(t *testing.T, root, page string) []docCommand {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	var setup []string
	section, inBlock, lang := "", false, ""
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := docFence.FindStringSubmatch(l); m != nil {
			inBlock, lang, setup = !inBlock, m[1], nil
			continue
		}
		if !inBlock {
			if strings.HasPrefix(l, "## ") {
				section = strings.TrimPrefix(l, "## ")
			}
			continue
		}
		if !docShellLangs[lang] {
			continue
		}
		start := i
		cmd := strings.TrimSpace(l)
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
		}
		cmd = strings.TrimPrefix(cmd, "$ ")
		if j := strings.Index(cmd, " #"); j >= 0 {
			cmd = strings.TrimSpace(cmd[:j])
		}
		switch {
		case docBenchCommand(cmd):
			out = append(out, docCommand{page, section, start + 1, append([]string(nil), setup...), cmd, false})
		case lang != "" && strings.HasPrefix(cmd, ". "):
			setup = append(setup, cmd)
		case lang != "" && docSetupLine(cmd):
			out = append(out, docCommand{page, section, start + 1, nil, cmd, true})
		}
	}
	return out
}

// docCommandSkip: the doc commands TestDocCommands does not run, by page
// and section, and why. Keep it short: every other command runs.
var docCommandSkip = map[string]string{
	// TestWritingPluginsGuide runs the whole section verbatim, against a
	// stand-in clone, in a home of its own: its bench commands need the
	// plugin its build makes in ~/bench-plugins.
	"docs/plugin-go.md#Go in five minutes": "TestWritingPluginsGuide runs this section verbatim: the set-up, the build into ~/bench-plugins, and its bench commands (the paper at a small scale)",
}

// docCommandExit: the exit code a doc command shows on purpose, when it
// is not 0.
var docCommandExit = map[string]int{
	"bench conform --quick bad-shared-rand": 1, // a plugin that breaks a rule
}

// TestDocCommands runs every bench command that README.md and docs/*.md
// show in a shell block (```sh, or $ bench in an untagged one), as a user
// would type it: through bash, with bench on the PATH and the shipped
// plugins beside it, in a directory that holds the repository and the
// files the pages name (my.yaml, eps.yaml, bench/gate.yaml, sealed.seed),
// one page after another command in order, so that a command that writes a
// file comes before the one that reads it. A command must exit 0 (or what
// docCommandExit says). Scale: BENCH_RUNS=20 unless the command sets
// --runs, so that a full-scale scenario takes seconds.
func TestDocCommands(t *testing.T) {
	skipShort(t, "every bench command in README.md and docs/*.md")
	// Each page in a home and a working directory of its own, its
	// environment given to bash, not set in this process: in parallel
	// with the package's other tests, not before them all.
	t.Parallel()
	root := repoRoot(t)
	pages := []string{"README.md"}
	m, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m {
		pages = append(pages, "docs/"+filepath.Base(p))
	}
	sort.Strings(pages)

	// bench on the PATH, with the shipped plugins where bench finds them
	// as binDir lays them out, and the broken plugin one page shows.
	bin := filepath.Join(t.TempDir(), "bin")
	linkOrCopy(t, filepath.Join(binDir, "bench"), filepath.Join(bin, "bench"))
	for _, glob := range []string{"bench-plugin-*", "plugins/bench-plugin-*"} {
		m, err := filepath.Glob(filepath.Join(binDir, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(binDir, p)
			linkOrCopy(t, p, filepath.Join(bin, rel))
		}
	}
	linkOrCopy(t, filepath.Join(badPlugins(t), "bench-plugin-bad-shared-rand"), filepath.Join(bin, "plugins", "bench-plugin-bad-shared-rand"))

	total := 0
	for _, page := range pages {
		cmds := docCommands(t, root, page)
		total += len(cmds)
		if len(cmds) == 0 {
			continue
		}
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			home, work := docFixture(t, root, page)
			for _, c := range cmds {
				if why, ok := docCommandSkip[c.page+"#"+c.section]; ok {
					t.Logf("%s:%d: not run here: %s", c.page, c.line, why)
					continue
				}
				script := strings.Join(append(append([]string{"set -eu"}, c.env...), c.cmd), "\n")
				cmd := exec.Command("bash", "-c", script)
				cmd.Dir = work
				cmd.Env = []string{
					"PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin",
					"HOME=" + home,
					"TMPDIR=" + os.TempDir(),
					"LANG=C.UTF-8",
					"BENCH_RUNS=20",
					"BENCH_START_TIMEOUT=" + testStartTimeout,
					"PIP_NO_INDEX=1", "PIP_NO_INPUT=1", "PIP_DISABLE_PIP_VERSION_CHECK=1",
				}
				stdout, stderr, code := runExit(t, cmd)
				if c.setup && code != 0 {
					t.Fatalf("%s:%d: the set-up line `%s`: exit %d\n%s\n%s", c.page, c.line, c.cmd, code, tail(stdout, 20), tail(stderr, 20))
				}
				if want := docCommandExit[c.cmd]; code != want {
					t.Errorf("%s:%d: `%s`: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.page, c.line, c.cmd, code, want,
						tail(stdout, 20), tail(stderr, 20))
				}
			}
		})
	}
	if total < 20 {
		t.Fatalf("only %d bench commands found in the docs: the extraction no longer sees them", total)
	}
}

// docFixture makes page's home and working directories: the working
// directory holds every top-level entry of the repository (linked, so
// that commands naming sdk/python or testdata/ci/gate.yaml find them and
// nothing is written into the checkout) and the files the pages' commands
// take as given; the home directory holds, for the Python page, the
// plugin its Python block shows, saved where the page says.
func docFixture(t *testing.T, root, page string) (home, work string) {
	t.Helper()
	dir := t.TempDir()
	home, work = filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{home, work, filepath.Join(work, "bench")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := e.Name(); name != "bin" && name != "bench" {
			if err := os.Symlink(filepath.Join(root, name), filepath.Join(work, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	scenario := func(name, plugins string) string {
		return fmt.Sprintf("name: %s\nenvironment: {means: [0.5, 0.4, 0.3], noise_sd: 1}\nhorizon: 500\nruns: 20\nseed: 7\npolicies:\n%s", name, plugins)
	}
	gate, err := os.ReadFile(filepath.Join(root, "testdata", "ci", "gate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"my.yaml":         scenario("my", "  - {plugin: ts, label: TS}\n  - {plugin: klucb, label: KL-UCB}\n"),
		"eps.yaml":        scenario("eps", "  - {plugin: epsgreedy, label: eps}\n"),
		"bench/gate.yaml": string(gate),
		"sealed.seed":     "0x" + strings.Repeat("5f3a9c0e", 8) + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if page == "docs/plugin-python.md" {
		if out, err := combinedOutput(t, exec.Command("/usr/bin/python3", "-c", "import grpc, google.protobuf, numpy, venv")); err != nil {
			t.Skipf("the page's plugin needs Debian's /usr/bin/python3 with python3-grpcio, python3-protobuf, python3-numpy and python3-venv: %v\n%s", err, tail(string(out), 3))
		}
		raw, err := os.ReadFile(filepath.Join(root, "docs", "plugin-python.md"))
		if err != nil {
			t.Fatal(err)
		}
		py := regexp.MustCompile("(?ms)^```python\\n(.*?)^```").FindStringSubmatch(string(raw))
		if py == nil {
			t.Fatal("docs/plugin-python.md shows no Python block")
		}
		if err := os.MkdirAll(filepath.Join(home, "bench-plugins"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "bench-plugins", "bench-plugin-epsgreedy"), []byte(py[1]), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, work
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
