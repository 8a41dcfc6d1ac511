package cli_test

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

// guideSection returns the fenced blocks of the guide's section titled
// title, in order.
func guideSection(t *testing.T, title string) []guideBlock {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "plugin-go.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("docs/plugin-go.md has no section %q", title)
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

// TestWritingPluginsGuide runs the Go section of the plugin author's guide
// verbatim in a temporary directory: its shell blocks as written, its two
// Go blocks as main.go and main_test.go, against this checkout standing in
// for the clone at ../regretbench. The guide once told authors to `go get`
// the unpublished module and never to run `go mod tidy`; neither worked.
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

	// ../regretbench: the module root of this checkout, with a plugin
	// directory of its own so that the guide's build does not write into
	// the repository's bin/.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	clone := filepath.Join(work, "regretbench")
	if err := os.MkdirAll(filepath.Join(clone, "bin", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A stand-in for each shipped plugin, as `make build` leaves them: the
	// guide's build must add its plugin beside them, never replace one
	// (bench ships a ucb1, so the guide's UCB1 has a name of its own). An
	// ELF header, so that go build -o would overwrite it as it would the
	// real executable (it refuses to replace what is not an object file).
	standIn := func(name string) string { return "\x7fELF stand-in for the shipped " + name + "\n" }
	for _, n := range shipped {
		if err := os.WriteFile(filepath.Join(clone, "bin", "plugins", "bench-plugin-"+n), []byte(standIn(n)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Everything else of the checkout, as a clone has it: the SDK imports
	// internal/, and its tests the host's client (internal/client).
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
	run := func(dir, script string) {
		t.Helper()
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the guide's commands failed: %v\n%s\n%s", err, script, out)
		}
	}
	run(work, sh[0]) // mkdir ucb1 && cd ucb1, go mod init, go mod edit
	dir := filepath.Join(work, "ucb1")
	for i, name := range []string{"main.go", "main_test.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(gofiles[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(dir, sh[1]) // go mod tidy, go test, go build
	for _, n := range shipped {
		if got, err := os.ReadFile(filepath.Join(clone, "bin", "plugins", "bench-plugin-"+n)); err != nil || string(got) != standIn(n) {
			t.Errorf("the guide's build replaced the shipped plugin %s (err %v)", n, err)
		}
	}

	// The plugin the guide built works with bench: it passes the
	// conformance rules that the in-module test did not already run.
	plugin := filepath.Join(clone, "bin", "plugins", "bench-plugin-ucb1-example")
	if st, err := os.Stat(plugin); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("the guide's build left no executable plugin: %v", err)
	}
	stdout, stderr, code := bench(t, "--plugin-dir", filepath.Dir(plugin), "conform", "--quick",
		"--rule", "handshake", "--rule", "describe", "--rule", "valid-arms", "ucb1-example")
	if code != 0 {
		t.Fatalf("bench conform ucb1-example: exit %d\n%s\n%s", code, stdout, stderr)
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
