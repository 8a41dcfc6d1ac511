package conform

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/conformance"
)

// TestRunExecutable checks a built plugin executable with the kit, launched
// as bench conform launches it (unconfined here), parent death included:
// the intermediate process is this test binary itself (this package's
// init).
func TestRunExecutable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	exe := filepath.Join(t.TempDir(), "bench-plugin-klucb")
	if out, err := exec.Command("go", "build", "-o", exe, "../../cmd/bench-plugin-klucb").CombinedOutput(); err != nil {
		t.Fatalf("building cmd/bench-plugin-klucb: %v\n%s", err, out)
	}
	conformance.RunExecutable(t, exe, launcher(nil), conformance.Quick())

	// A copy under another name breaks rule describe only.
	renamed := filepath.Join(t.TempDir(), "bench-plugin-ucb9")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(renamed, data, 0o755); err != nil {
		t.Fatal(err)
	}
	var got []string
	conformance.CheckExecutable(t.Context(), renamed, launcher(nil), func(r conformance.Result) {
		if r.Err != nil {
			got = append(got, r.Name()+": "+r.Err.Error())
		}
	}, conformance.Quick(), conformance.WithRules("describe", "valid-arms"))
	if len(got) != 1 || !strings.HasPrefix(got[0], "describe: ") || !strings.Contains(got[0], `"klucb": name it bench-plugin-klucb`) {
		t.Errorf("a renamed copy: failures %q, want one of rule describe naming bench-plugin-klucb", got)
	}
}
