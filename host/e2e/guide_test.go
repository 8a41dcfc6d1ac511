package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guideBlock is one fenced block of the Go plugin guide, docs/plugin-go.md.
type guideBlock struct{ lang, text string }

var fence = regexp.MustCompile("(?ms)^```(\\w+)\\n(.*?)^```\\n")

// guideSection returns the fenced blocks of the section titled title of
// the Go plugin guide, docs/plugin-go.md, in order.
func guideSection(t *testing.T, title string) []guideBlock {
	t.Helper()
	return docSection(t, "docs/plugin-go.md", title)
}

// docSection returns the fenced blocks of the section titled title of
// page (a path from the repository's root), in order.
func docSection(t *testing.T, page, title string) []guideBlock {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("%s has no section %q", page, title)
	}
	doc = doc[i+1:]
	if j := strings.Index(doc[3:], "\n## "); j >= 0 {
		doc = doc[:j+4]
	}
	var out []guideBlock
	for _, m := range fence.FindAllStringSubmatch(doc, -1) {
		out = append(out, guideBlock{m[1], m[2]})
	}
	return out
}

// authorWorkspace is a new author's directory as the guides assume it:
// work holds ../regretbench (this checkout's entries, without its bin/,
// so that nothing the guide does can reach the repository's build) and
// home, the user's home; env is the user's environment: bench first on
// the PATH from bin with the shipped plugins beside it, none of the
// tests' BENCH_ variables, and Go's caches and settings as they are,
// which a new HOME would otherwise move.
func authorWorkspace(t *testing.T, bin string) (work, home string, env []string) {
	t.Helper()
	root := repoRoot(t)
	work = t.TempDir()
	clone := filepath.Join(work, "regretbench")
	home = filepath.Join(work, "home")
	for _, d := range []string{clone, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := e.Name(); name != "bin" {
			if err := os.Symlink(filepath.Join(root, name), filepath.Join(clone, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	goEnv, err := output(t, exec.Command("go", "env", "GOENV", "GOCACHE", "GOPATH", "GOMODCACHE"))
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	env = installEnv("HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for i, v := range strings.Fields(string(goEnv)) {
		env = append(env, []string{"GOENV", "GOCACHE", "GOPATH", "GOMODCACHE"}[i]+"="+v)
	}
	return work, home, env
}

// TestWritingPluginsGuide runs the Go section of the plugin author's guide
// verbatim in a temporary directory, as a user with bench installed would:
// its shell blocks as written, its two Go blocks as main.go and
// main_test.go, against this checkout standing in for the clone at
// ../regretbench, in a home directory of its own, with bench and the
// shipped plugins beside it on the PATH. The guide once told authors to
// `go get` the unpublished module and never to run `go mod tidy`, and
// later to build into the clone's bin/plugins, where a plugin's name could
// replace a shipped one; its plugin now goes into ~/bench-plugins and runs
// beside the shipped plugins, on a scenario and on the whole suite.
func TestWritingPluginsGuide(t *testing.T) {
	skipShort(t, "the commands of docs/plugin-go.md, building a plugin module from scratch")
	t.Parallel()
	blocks := guideSection(t, "Go in five minutes")
	var sh, gofiles []string
	for _, b := range blocks {
		switch b.lang {
		case "sh":
			sh = append(sh, b.text)
		case "go":
			gofiles = append(gofiles, b.text)
		}
	}
	if len(sh) != 3 || len(gofiles) != 2 {
		t.Fatalf("the guide's Go section has %d sh and %d go blocks; this test expects 3 (set-up, build, use) and 2 (main.go, main_test.go)", len(sh), len(gofiles))
	}

	work, home, env := authorWorkspace(t, binDir)
	run := func(dir, script string, extra ...string) string {
		t.Helper()
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(append([]string(nil), env...), extra...)
		out, err := combinedOutput(t, cmd)
		if err != nil {
			t.Fatalf("the guide's commands failed: %v\n%s\n%s", err, script, out)
		}
		return string(out)
	}
	run(work, sh[0]) // mkdir ucb1 && cd ucb1, go mod init, go mod edit
	dir := filepath.Join(work, "ucb1")
	for i, name := range []string{"main.go", "main_test.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(gofiles[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(dir, sh[1]) // go mod tidy, go test, go build into ~/bench-plugins

	// The build left the plugin in the user's directory, and only there.
	mine := filepath.Join(home, "bench-plugins")
	ents, err := os.ReadDir(mine)
	if err != nil || len(ents) != 1 || ents[0].Name() != "bench-plugin-ucb1-example" {
		t.Fatalf("~/bench-plugins after the guide's build: %v %v, want bench-plugin-ucb1-example alone", ents, err)
	}
	if st, err := os.Stat(filepath.Join(mine, "bench-plugin-ucb1-example")); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("the guide's build left no executable plugin: %v", err)
	}

	// The guide's use: bench plugins, conform, a scenario, and the paper
	// (at a small scale, through BENCH_RUNS and BENCH_HORIZON as a user
	// could give them).
	out := run(dir, sh[2], "BENCH_RUNS=4", "BENCH_HORIZON=120")
	for _, want := range []string{
		"  path   " + filepath.Join(mine, "bench-plugin-ucb1-example") + "  (--plugin-dir)\n",
		"  path   " + filepath.Join(binDir, "plugins", "bench-plugin-ucb1") + "  (beside bench)\n",
		"Comparison in two_arm",
		"Comparison across 9 scenarios",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the guide's use block's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "shadows") {
		t.Errorf("the guide's plugin shadows a shipped one:\n%s", out)
	}
	for _, name := range []string{"two_arm", "obd", "remaxgrad_ten_arm"} {
		f := readResults(t, filepath.Join(dir, "paper", name+".json"))
		last := f.Policies[len(f.Policies)-1]
		if last.Label != "ucb1-example" || last.Status != "ok" || f.Policy("TS") == nil {
			t.Errorf("paper/%s.json: last policy %q (%s), want ucb1-example, ok, beside the shipped TS", name, last.Label, last.Status)
		}
	}
	if index, err := os.ReadFile(filepath.Join(dir, "paper", "index.html")); err != nil || !strings.Contains(string(index), ">ucb1-example</") {
		t.Errorf("paper/index.html does not show ucb1-example: %v", err)
	}
}

// TestProfileOfFailedRun: --cpuprofile is written whole even when the
// command fails; cobra skips PersistentPostRunE after an error, which
// used to leave an empty profile behind.
func TestProfileOfFailedRun(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nhorizon: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, code := bench(t, "--cpuprofile", prof, "--scenario", bad)
	if code != 2 {
		t.Fatalf("exit %d, want 2 for a bad scenario", code)
	}
	raw, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	// A finished CPU profile is gzip-compressed protobuf.
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Fatalf("the profile of a failed run is %d bytes, not a finished gzip-compressed profile", len(raw))
	}
}
