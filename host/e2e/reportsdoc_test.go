package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportsDoc runs every command of docs/reports.md's sh blocks (each a
// bench command line, without shell syntax) and checks what the page says
// each prints: the distribution table, the replayed replication's title,
// the LaTeX tabulars.
func TestReportsDoc(t *testing.T) {
	skipShort(t, "the commands of docs/reports.md")
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "reports.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ // what each command's stdout shows, in the page's order
		"Distribution of the final regret at T=2000",
		"replication 24 of 40 runs",
		`\begin{tabular}`,
	}
	var cmds []string
	for _, m := range fence.FindAllStringSubmatch(string(raw), -1) {
		if m[1] != "sh" {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(m[2]), "\n") {
			if strings.ContainsAny(line, "|><;&$'\"\\") || !strings.HasPrefix(line, "bench ") {
				t.Fatalf("docs/reports.md: %q is not a plain bench command line this test can run", line)
			}
			cmds = append(cmds, line)
		}
	}
	if len(cmds) != len(want) {
		t.Fatalf("docs/reports.md has %d commands, this test expects %d", len(cmds), len(want))
	}
	for i, line := range cmds {
		stdout, stderr, code := bench(t, append(strings.Fields(line)[1:], "-q")...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", line, code, stderr)
		}
		if !strings.Contains(stdout, want[i]) {
			t.Errorf("%s: stdout lacks %q:\n%s", line, want[i], stdout)
		}
	}
}
