package gate

import (
	"testing"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
)

// TestGateOptions: bench gate's arguments and flags land in its
// CmdOptions.
func TestGateOptions(t *testing.T) {
	cmdtest.Run(t, cmdtest.Root, NewCmdGate, []cmdtest.Case[CmdOptions]{{
		Name: "defaults",
		Args: []string{"gate", "a.json", "b.json"},
		Check: func(t *testing.T, o *CmdOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "files", [2]string{o.BaselinePath, o.CurrentPath}, [2]string{"a.json", "b.json"})
			cmdtest.Eq(t, "Options", o.Options, Options{Metric: "regret", Margin: "5%", Alpha: 0.01, Looks: 5, Format: "table", FormatFlag: "--format"})
		},
	}, {
		Name: "every flag",
		Args: []string{"gate", "a.json", "b.json", "--metric", "underestimation", "--margin", "0", "--alpha", "0.05",
			"--force", "--require-conclusive", "--require-same", "--format", "json", "--sequential", "--looks", "4"},
		Check: func(t *testing.T, o *CmdOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Options", o.Options, Options{Metric: "underestimation", Margin: "0", Alpha: 0.05,
				Force: true, RequireConclusive: true, RequireSame: true, Sequential: true, Looks: 4, Format: "json", FormatFlag: "--format"})
		},
	}, {
		Name:   "environment and config file",
		Args:   []string{"gate", "a.json", "b.json"},
		Env:    map[string]string{"BENCH_MARGIN": "10%", "BENCH_FORMAT": "markdown"},
		Config: "margin: 20%\nrequire-same: true\n",
		Check: func(t *testing.T, o *CmdOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "margin", o.Margin, "10%")
			cmdtest.Eq(t, "format", o.Format, "markdown")
			cmdtest.Eq(t, "requireSame", o.RequireSame, true)
		},
	},
		{Name: "one file", Args: []string{"gate", "a.json"}, Err: "accepts 2 arg(s), received 1"},
	})
}
