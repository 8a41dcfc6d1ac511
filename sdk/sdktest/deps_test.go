package sdktest_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hostOnly matches what an author's tests must not link: the sandbox
// (internal/sandbox and the libraries it confines plugins with), the
// launching of executables (internal/procrun, internal/launch) and
// anything of the host.
var hostOnly = regexp.MustCompile(`landlock|seccomp|/internal/sandbox|/internal/procrun|/internal/launch|/host/`)

// goTool returns the go command: go test runs tests with its own on PATH.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH to list the dependencies with: %v", err)
	}
	return p
}

// TestAuthorDeps: the packages a plugin author imports (sdk, sdk/sdktest)
// and this package's tests link nothing of the sandbox or the host, so
// an author's go test builds and links none of it.
func TestAuthorDeps(t *testing.T) {
	for _, args := range [][]string{
		{"list", "-deps", "-test", "."},
		{"list", "-deps", ".."},
	} {
		out, err := exec.Command(goTool(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var bad []string
		for _, p := range strings.Fields(string(out)) {
			if hostOnly.MatchString(p) {
				bad = append(bad, p)
			}
		}
		if len(bad) > 0 {
			t.Errorf("go %s lists what an author's tests must not link: %s", strings.Join(args, " "), strings.Join(bad, " "))
		}
	}
}

// TestAuthorBinary: the test binary of a plugin in a module of its own
// (examples/ucb1, whose tests run this kit) holds no symbol of the
// sandbox's libraries or of the launching of executables.
func TestAuthorBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds examples/ucb1's test binary")
	}
	gotool := goTool(t)
	bin := filepath.Join(t.TempDir(), "ucb1.test")
	build := exec.Command(gotool, "test", "-c", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "examples", "ucb1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c in examples/ucb1: %v\n%s", err, out)
	}
	out, err := exec.Command(gotool, "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	if !strings.Contains(string(out), "sdktest.Run") {
		t.Fatalf("examples/ucb1's test binary does not link sdktest.Run: the check below would prove nothing")
	}
	var bad []string
	for line := range strings.Lines(string(out)) {
		if strings.Contains(strings.ToLower(line), "landlock") || hostOnly.MatchString(line) {
			bad = append(bad, strings.TrimSpace(line))
			if len(bad) == 5 {
				break
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("examples/ucb1's test binary links what an author's tests must not, e.g.:\n%s", strings.Join(bad, "\n"))
	}
}
