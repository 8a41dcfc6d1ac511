package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// TestPluginOutOfMemory: a plugin that dies of a Go fatal error (out of
// memory, then a dump of its 300 goroutines) fails its policy with an
// error that quotes the runtime's line, the fatal error and the frame of
// the goroutine that failed; not the tail of the dump, the frames of some
// parked goroutine, as it did.
func TestPluginOutOfMemory(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	own := ownPlugins(t, faultyPlugins(t), "faulty-out-of-memory", "ts")
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := bench(t, "--plugin-dir", own, "--scenario", faultScenario(t, "faulty-out-of-memory"), "--out", out, "-q")
	t.Logf("stderr:\n%s", stderr)
	if code != cli.ExitPolicy {
		t.Errorf("exit %d, want %d", code, cli.ExitPolicy)
	}
	// The stack of the goroutine that failed, alone, then the error.
	stack, msg, ok := strings.Cut(stderr, "bench: policy failed: ")
	if !ok {
		t.Fatal("no policy failed")
	}
	if !strings.Contains(stack, `policy "Broken" (plugin faulty-out-of-memory) died of a Go fatal error; its stack:`) ||
		strings.Count(stack, " gp=0x") != 1 || !strings.Contains(stack, "main.outOfMemory()") {
		t.Errorf("the stack printed is not the failing goroutine's alone")
	}
	for _, w := range []string{
		`policy "Broken"`, "step round 5", "the plugin process exited",
		"runtime: out of memory: cannot allocate 1073741824-byte block (3221225472 in use)",
		"fatal error: out of memory",
		"at main.outOfMemory (",
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("the error lacks %q", w)
		}
	}
	for _, w := range []string{"select (no cases)", "gopark", "main.outOfMemory.func1", "goroutine "} {
		if strings.Contains(stderr, w) && strings.Contains(msg, w) {
			t.Errorf("the error quotes %q, of a dump", w)
		}
	}
	if got := readResults(t, out).Policies[0].Error; !strings.Contains(got, "fatal error: out of memory") {
		t.Errorf("the results' error lacks the fatal error: %s", got)
	}
	assertNoPluginsIn(t, own)
}
