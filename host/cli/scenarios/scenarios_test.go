package scenarios

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
)

// TestScenariosOptions: bench scenarios takes no argument, and bench
// scenarios show one.
func TestScenariosOptions(t *testing.T) {
	cmdtest.Run(t, cmdtest.Root, NewCmdScenarios, []cmdtest.Case[Options]{
		{Name: "list", Args: []string{"scenarios"}, Check: func(*testing.T, *Options, *cmdutil.Factory) {}},
		{Name: "an argument", Args: []string{"scenarios", "two_arm"}, Err: `unknown command "two_arm"`},
	})
	// show, under scenarios as bench holds it.
	show := func(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
		s := &cobra.Command{Use: "scenarios"}
		s.AddCommand(NewCmdShow(f, runF))
		return s
	}
	cmdtest.Run(t, cmdtest.Root, show, []cmdtest.Case[ShowOptions]{
		{Name: "show", Args: []string{"scenarios", "show", "two_arm"}, Check: func(t *testing.T, o *ShowOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Scenario", o.Scenario, "two_arm")
		}},
		{Name: "show two", Args: []string{"scenarios", "show", "a", "b"}, Err: "accepts 1 arg(s), received 2"},
	})
}
