// Package scenarios is the bench scenarios command, which lists the
// shipped scenarios, and its subcommand show, which prints one (or a
// file) as resolved YAML.
package scenarios

import (
	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/scenario"
)

// Options are the options of bench scenarios, which has no flags of its
// own.
type Options struct {
	F *cmdutil.Factory
}

// NewCmdScenarios returns bench scenarios and its subcommand show. runF,
// when not nil, receives the options in place of listing (for tests).
func NewCmdScenarios(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the shipped scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return scenario.WriteShipped(o.F.Stdout)
		},
	}
	cmd.AddCommand(NewCmdShow(f, nil))
	return cmd
}

// ShowOptions are the argument of bench scenarios show.
type ShowOptions struct {
	F        *cmdutil.Factory
	Scenario string // a shipped name or a file
}

// NewCmdShow returns bench scenarios show. runF, when not nil, receives
// the options in place of printing (for tests).
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	o := &ShowOptions{F: f}
	return &cobra.Command{
		Use:       "show NAME|FILE",
		Short:     "Print a scenario as resolved YAML (defaults filled in)",
		Args:      cobra.ExactArgs(1),
		ValidArgs: scenario.Shipped(), // sorted
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Scenario = args[0]
			if runF != nil {
				return runF(o)
			}
			return showRun(o)
		},
	}
}

// showRun prints the scenario o names as resolved YAML.
func showRun(o *ShowOptions) error {
	sc, err := scenario.Resolve(o.Scenario)
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	b, err := sc.YAML()
	if err != nil {
		return err
	}
	_, err = o.F.Stdout.Write(b)
	return err
}
