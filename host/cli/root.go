// Package cli is the bench command line: it parses flags (cobra, with
// host/internal/flagconfig filling unset flags from BENCH_* environment
// variables and a config file), maps them to the options of the
// libraries (a run's to a run.Request, which host/run plays from loading
// the scenario to the gate's verdict), and states what they return,
// naming by its flag an option an error names (run.OptionError). As in
// gh, each command is built by its NewCmdX(f, runF) from the shared
// cmdutil.Factory; runF, when not nil, receives the parsed options in
// place of running (for tests). The commands live one package each under
// host/cli (gate, merge, plot, report, plugins, scenarios, conform); this
// package assembles them into bench and holds the run (bench run and
// bench --scenario), paper and board commands. The exit codes are package
// exitcode's.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/conform"
	"github.com/regretbench/regretbench/host/cli/gate"
	"github.com/regretbench/regretbench/host/cli/merge"
	"github.com/regretbench/regretbench/host/cli/plot"
	"github.com/regretbench/regretbench/host/cli/plugins"
	"github.com/regretbench/regretbench/host/cli/report"
	"github.com/regretbench/regretbench/host/cli/scenarios"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// Run executes bench with args (without the program name), writing results
// to stdout and diagnostics to stderr. Map its error with ExitCode.
//
// Every message on stderr is escaped by termsafe: errors and warnings
// quote plugins' texts and files' contents, which must not reach the
// terminal raw. Only the progress bars, bench's own drawing, are not.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRoot(stdout, stderr)
	msgs := termsafe.Writer(stderr)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(msgs)
	cmd, err := root.ExecuteContextC(withCommand(ctx, args))
	// Here, not in a PersistentPostRunE, which cobra skips when a command
	// fails: the profile of a failed run is the one most worth reading.
	stopProfile()
	if err != nil {
		_, coded := exitcode.Of(err) // a gate regression (exit 1) is never a usage error
		if ExitCode(err) == ExitFailure && !coded && cmdutil.IsUsage(err) {
			err = withCode(ExitInput, err)
		}
		fmt.Fprintf(msgs, "bench: %v\n", err)
		if ExitCode(err) == ExitInput && cmdutil.IsUsage(err) && cmd != nil {
			fmt.Fprintf(msgs, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return err
}

// factory is cmdutil.Factory as the board commands read it.
type factory struct {
	*cmdutil.Factory
	stdout, stderr io.Writer // the Factory's Stdout and Stderr
}

// newRoot returns bench with every command. Its messages to stderr are
// escaped (termsafe.Writer); stdout carries formats for programs too
// (csv, json), so each renderer escapes the strings it shows.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	f := &cmdutil.Factory{Stdout: stdout, Stderr: termsafe.Writer(stderr), Term: stderr}
	root := newCmdRoot(f, nil)
	root.AddCommand(
		newCmdRun(f, nil),
		plugins.NewCmdPlugins(f, nil),
		conform.NewCmdConform(f, nil),
		scenarios.NewCmdScenarios(f, nil),
		merge.NewCmdMerge(f, nil),
		newCmdPaper(f, nil),
		gate.NewCmdGate(f, nil),
		plot.NewCmdPlot(f, nil),
		report.NewCmdReport(f, nil),
	)
	root.AddCommand(newCmdBoard(&factory{Factory: f, stdout: f.Stdout, stderr: f.Stderr})...)
	cmdutil.MarkUsage(root)
	return root
}

// newCmdRoot returns the root command alone: its persistent flags, which
// fill f, and its own form of a run, bench --scenario X. runF, when not
// nil, receives the run's options in place of running it (for tests).
func newCmdRoot(f *cmdutil.Factory, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{f: f}
	root := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark multi-armed bandit policy plugins on shared scenarios",
		Long: `bench runs bandit policies, each a plugin executable, against a scenario's
environment and prints regret tables and separated-regret summaries.

  bench --scenario failure_mode          run a shipped scenario
  bench --scenario my.yaml --out r.json  run a file, write the results file
  bench --scenario quick --with 'ts:inflation=2@TS x2'
                                         add a policy; print how it compares
  bench plugins                          list installed plugins
  bench scenarios                        list shipped scenarios
  bench gate base.json new.json          exit 1 when a policy regressed (see 'bench gate --help')`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Bind(cmd); err != nil {
				return err
			}
			return startProfile(cmd)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.scenario == "" {
				return cmd.Help()
			}
			return o.run(cmd, runF)
		},
	}
	cmdutil.AddRootFlags(root, f)
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of bench itself to this file (go tool pprof)")
	addRunFlags(root.Flags(), o)
	return root
}
