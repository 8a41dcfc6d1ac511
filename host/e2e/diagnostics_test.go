package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// TestConformDiagnosticsAgree: the rule diagnostics-agree passes a Python
// BatchPolicy that assigns st.diagnostics an array of its own, whose values
// the SDK now copies into the step socket's frame (before, the socket
// sent zeros and conform passed it), and fails, over the step socket
// alone, the same plugin on the SDK as it was.
func TestConformDiagnosticsAgree(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	pythonSDK(t)
	dir := filepath.Join(binDir, "pydiag")
	script, err := filepath.Abs(filepath.Join("testdata", "pydiag", "bench-plugin-pydiag"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"rebind", "lost"} {
		if err := os.Symlink(script, filepath.Join(dir, "bench-plugin-pydiag-"+mode)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		mode string
		code int
		want map[string]string // status line -> status, then words of its reason
	}{
		{"rebind", cli.ExitOK, map[string]string{
			"diagnostics-agree/socket": "PASS", "diagnostics-agree/grpc": "PASS", "diagnostics-agree/grpc-unary": "PASS"}},
		{"lost", cli.ExitFailure, map[string]string{
			"diagnostics-agree/socket": `FAIL diagnostic "round" is 0 in every replication at every round over socket, but not over grpc-unary (round `,
			"diagnostics-agree/grpc":   "PASS", "diagnostics-agree/grpc-unary": "PASS"}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			own := ownPlugins(t, dir, "pydiag-"+c.mode)
			stdout, stderr, code := bench(t, "--plugin-dir", own, "conform", "--quick", "-v", "--sandbox-read", filepath.Join(repoRoot(t), "sdk", "python"), "--start-timeout", "2m", "--rule", "diagnostics-agree", "pydiag-"+c.mode)
			t.Logf("stdout:\n%s", stdout)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, stderr)
			}
			status, reason := conformResults(t, stdout)
			for line, want := range c.want {
				st, why, _ := strings.Cut(want, " ")
				if status[line] != st || !strings.Contains(reason[line], why) {
					t.Errorf("%s: %s %s, want %s", line, status[line], reason[line], want)
				}
			}
			assertNoPluginsIn(t, own)
		})
	}
}
