package merge

import (
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
)

// TestMergeOptions: bench merge's arguments and --out land in its
// Options; without --out it stops before merging.
func TestMergeOptions(t *testing.T) {
	cmdtest.Run(t, cmdtest.Root, NewCmdMerge, []cmdtest.Case[Options]{{
		Name: "flags",
		Args: []string{"merge", "a.json", "b.json", "--out", "all.json"},
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "inputs", o.Inputs, []string{"a.json", "b.json"})
			cmdtest.Eq(t, "out", o.Out, "all.json")
		},
	}, {
		Name: "environment",
		Args: []string{"merge", "a.json"},
		Env:  map[string]string{"BENCH_OUT": "env.json"},
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "out", o.Out, "env.json")
		},
	}, {
		Name:   "config file",
		Args:   []string{"merge", "a.json"},
		Config: "out: config.json\n",
		Check: func(t *testing.T, o *Options, f *cmdutil.Factory) {
			cmdtest.Eq(t, "out", o.Out, "config.json")
			if !strings.HasSuffix(f.Config, "bench.yaml") {
				t.Errorf("factory config %q, want the --config file (merge refuses to overwrite it)", f.Config)
			}
		},
	},
		{Name: "no --out", Args: []string{"merge", "a.json"}, Err: "merge: --out is required"},
		{Name: "no file", Args: []string{"merge", "--out", "all.json"}, Err: "requires at least 1 arg(s)"},
	})
}
