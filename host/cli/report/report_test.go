package report

import (
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
)

// TestReportOptions: bench report's arguments and flags land in its
// Options; without --out it stops before reading a file.
func TestReportOptions(t *testing.T) {
	cmdtest.Run(t, cmdtest.Root, NewCmdReport, []cmdtest.Case[Options]{{
		Name: "flags",
		Args: []string{"report", "a.json", "b.json", "-o", "r.html", "--title", "T", "--log-x", "--log-y"},
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Inputs", o.Inputs, []string{"a.json", "b.json"})
			cmdtest.Eq(t, "Out, Title", [2]string{o.Out, o.Title}, [2]string{"r.html", "T"})
			cmdtest.Eq(t, "LogX, LogY", [2]bool{o.LogX, o.LogY}, [2]bool{true, true})
		},
	}, {
		Name:   "config file",
		Args:   []string{"report", "a.json"},
		Config: "out: config.html\n",
		Check: func(t *testing.T, o *Options, f *cmdutil.Factory) {
			cmdtest.Eq(t, "Out", o.Out, "config.html")
			if !strings.HasSuffix(f.Config, "bench.yaml") {
				t.Errorf("factory config %q, want the --config file (report refuses to overwrite it)", f.Config)
			}
		},
	},
		{Name: "no --out", Args: []string{"report", "a.json"}, Err: "report: --out FILE.html is required"},
		{Name: "no file", Args: []string{"report", "--out", "r.html"}, Err: "requires at least 1 arg(s)"},
	})
}
