package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// TestAuditDefault: a sealed run (--seed random) is audited without
// --audit, and so is a run whose sandbox leaves channels between policies
// open (--sandbox off), each saying so on stderr in one line and in the
// results file (audit.default); --audit 0 turns it off and says the run is
// unaudited; --audit N wins; a run at strict with a fixed seed, where no
// channel is open, is not audited.
func TestAuditDefault(t *testing.T) {
	t.Parallel()
	strictOpen := []string{"skip"}
	if p, err := launch.Plan(sandbox.Config{Level: sandbox.Strict}); err == nil {
		strictOpen = p.OpenChannels()
	}
	for _, c := range []struct {
		name    string
		args    []string
		audited int    // replications audited per policy
		why     string // in audit.default and on stderr
		stderr  string // on stderr besides
	}{
		{"seed random", []string{"--seed", "random"}, run.DefaultAudit, "a sealed run (--seed random)", "auditing 3 replications of each policy (--audit 3 by default; --audit 0 turns it off)"},
		{"seed random, --audit 0", []string{"--seed", "random", "--audit", "0"}, 0, "", "bench: warning: --audit 0: this run is unaudited (without it, it would be: a sealed run (--seed random))"},
		{"seed random, --audit 2", []string{"--seed", "random", "--audit", "2"}, 2, "", ""},
		{"sandbox off", []string{"--sandbox", "off"}, run.DefaultAudit, "the sandbox (off) leaves channels between policies open: ", "auditing 3 replications"},
		{"sandbox off, --audit 0", []string{"--sandbox", "off", "--audit", "0"}, 0, "", "bench: warning: --audit 0: this run is unaudited (without it, it would be: the sandbox (off) leaves channels between policies open: "},
		{"strict", []string{"--sandbox", "strict"}, 0, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.name == "strict" && strictOpen != nil {
				t.Skipf("the strict sandbox is not available here, or leaves channels open: %v", strictOpen)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--scenario", "quick", "--runs", "8", "--horizon", "100", "--policy", "TS", "--out", out, "-q"}, c.args...)
			_, stderr, code := bench(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			t.Logf("stderr:\n%s", stderr)
			f := readResults(t, out)
			p := policyByLabel(f, "TS")
			switch {
			case c.audited == 0 && p.Audit != nil:
				t.Errorf("audited: %+v, want no audit", p.Audit)
			case c.audited > 0 && (p.Audit == nil || len(p.Audit.Replications) != c.audited || !p.Audit.OK):
				t.Errorf("audit %+v, want ok over %d replications", p.Audit, c.audited)
			case c.audited > 0 && !strings.HasPrefix(p.Audit.Default, c.why):
				t.Errorf("audit.default %q, want %q", p.Audit.Default, c.why)
			}
			for _, w := range []string{c.why, c.stderr} {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			if c.why == "" && c.stderr == "" && strings.Contains(stderr, "audit") {
				t.Errorf("stderr speaks of an audit:\n%s", stderr)
			}
		})
	}
}
