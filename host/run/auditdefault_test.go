package run_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/seed"
)

// TestSetAuditDefault: the audit is on by default, DefaultAudit
// replications, in a sealed run and where channels are open, saying why;
// --audit N wins, --audit 0 turns it off saying the run is unaudited; a
// run that cannot be audited says it is not; a plain run is untouched.
func TestSetAuditDefault(t *testing.T) {
	one := 0
	open := []string{"flock on shared files"}
	for _, c := range []struct {
		name   string
		opts   run.Options
		given  bool
		ctx    bool // a contextual scenario
		open   []string
		audit  int
		why    string // AuditDefault's start
		stderr string // "" for nothing
	}{
		{"plain", run.Options{}, false, false, nil, 0, "", ""},
		{"sealed", run.Options{Overrides: run.Overrides{Seed: &seed.Choice{Random: true}}}, false, false, nil, run.DefaultAudit, "a sealed run (--seed random)", "bench: a sealed run (--seed random): auditing 3 replications"},
		{"open", run.Options{}, false, false, open, run.DefaultAudit, "the sandbox (off) leaves channels between policies open: flock on shared files", "auditing 3"},
		{"both", run.Options{Overrides: run.Overrides{Seed: &seed.Choice{Random: true}}}, false, false, open, run.DefaultAudit, "a sealed run (--seed random); the sandbox (off)", "auditing 3"},
		{"--audit 5", run.Options{Audit: 5}, true, false, open, 5, "", ""},
		{"--audit 0", run.Options{}, true, false, open, 0, "", "bench: warning: --audit 0: this run is unaudited (without it, it would be: the sandbox (off)"},
		{"--audit 0, plain", run.Options{}, true, false, nil, 0, "", ""},
		{"--sequential", run.Options{Sequential: true}, false, false, open, 0, "", "a run with --sequential cannot be audited: this run is unaudited"},
		{"contextual", run.Options{}, false, true, nil, run.DefaultAudit, "a contextual scenario", "bench: a contextual scenario (its replications see the same rows, so pooling them across a batch pays): auditing 3"},
		{"contextual, --audit 0", run.Options{}, true, true, nil, 0, "", "bench: warning: --audit 0: this run is unaudited (without it, it would be: a contextual scenario"},
		{"--replication", run.Options{Replication: &one}, false, false, open, 0, "", "a run with --replication cannot be audited: this run is unaudited"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			o := c.opts
			o.Name = flag // as bench names them
			o.SetAuditDefault(c.given, c.ctx, "off", c.open, &stderr)
			if o.Audit != c.audit || !strings.HasPrefix(o.AuditDefault, c.why) || (c.why == "") != (o.AuditDefault == "") {
				t.Errorf("audit %d %q, want %d %q...", o.Audit, o.AuditDefault, c.audit, c.why)
			}
			got := stderr.String()
			if c.stderr == "" && got != "" || !strings.Contains(got, c.stderr) {
				t.Errorf("stderr %q, want %q", got, c.stderr)
			}
			if strings.Count(got, "\n") > 1 {
				t.Errorf("stderr takes more than one line: %q", got)
			}
		})
	}
}
