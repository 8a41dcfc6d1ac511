// Package cli is the bench command line: it parses flags (cobra, with
// host/internal/flagconfig filling unset flags from BENCH_* environment
// variables and a config file), maps them to the options of the
// libraries (a run's to a run.Request, which host/run plays from loading
// the scenario to the gate's verdict), and states what they return,
// naming by its flag an option an error names (run.OptionError). Each
// command is built by its newCmdX(f, runF), whose runF, when not nil,
// receives the parsed options in place of running (for tests). The exit
// codes are package exitcode's.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/registry"
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
		if ExitCode(err) == ExitFailure && !coded && isUsage(err) {
			err = withCode(ExitInput, err)
		}
		fmt.Fprintf(msgs, "bench: %v\n", err)
		if ExitCode(err) == ExitInput && isUsage(err) && cmd != nil {
			fmt.Fprintf(msgs, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return err
}

// usageError marks an error in how bench was called: a bad flag, a missing
// or extra argument, an unknown command. Run prints the usage hint after
// it and exits 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// isUsage reports errors marked by markUsage.
func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// markUsage makes every flag and argument error of c and its subcommands
// a usageError: cobra's flag parsing reports through the FlagErrorFunc
// (inherited by subcommands), and each command's Args validator is wrapped.
func markUsage(c *cobra.Command) {
	if !c.HasParent() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	}
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markUsage(sub)
	}
}

// factory holds what bench's commands share, in the manner of gh's
// cmdutil.Factory: the output streams (stderr escapes what it is given,
// see Run; term is the raw stderr, for progress bars), and the root's
// persistent flags
// (--plugin-dir, and the --config file flagconfig.Bind read). The root fills
// pluginDirs and config before any command's RunE; commands only read
// them. Each command's own flags live in its own options struct, built by
// its newCmdX(f, runF).
type factory struct {
	stdout, stderr io.Writer
	term           io.Writer // the raw stderr: progress bars only; nil: stderr
	pluginDirs     []string  // every --plugin-dir, in order
	config         string    // the --config file read, "" when none
}

// plugins is the plugin search path: every --plugin-dir, then
// BENCH_PLUGIN_PATH's entries, then the shipped plugins beside bench.
func (f *factory) plugins() registry.Path {
	return registry.NewPath(f.pluginDirs, os.Getenv(registry.EnvPath))
}

// progressOut is where progress bars are drawn: the raw stderr, which
// progress.New checks is a terminal. Bars escape the labels they show.
func (f *factory) progressOut() io.Writer {
	if f.term != nil {
		return f.term
	}
	return f.stderr
}

// newRoot returns bench with every command. Its messages to stderr are
// escaped (termsafe.Writer); stdout carries formats for programs too
// (csv, json), so each renderer escapes the strings it shows.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	f := &factory{stdout: stdout, stderr: termsafe.Writer(stderr), term: stderr}
	root := newCmdRoot(f, nil)
	root.AddCommand(
		newCmdRun(f, nil),
		newCmdPlugins(f, nil),
		newCmdConform(f, nil),
		newCmdScenarios(f, nil),
		newCmdMerge(f, nil),
		newCmdPaper(f, nil),
		newCmdGate(f, nil),
		newCmdPlot(f, nil),
		newCmdReport(f, nil),
	)
	root.AddCommand(newCmdBoard(f)...)
	markUsage(root)
	return root
}

// newCmdRoot returns the root command alone: its persistent flags, which
// fill f, and its own form of a run, bench --scenario X. runF, when not
// nil, receives the run's options in place of running it (for tests).
func newCmdRoot(f *factory, runF func(*runOptions) error) *cobra.Command {
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
			var err error
			if f.config, err = flagconfig.Bind(cmd, "BENCH"); err != nil {
				return withCode(ExitInput, err)
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
	root.PersistentFlags().String("config", "", "config file (YAML) with flag values; also BENCH_CONFIG")
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of bench itself to this file (go tool pprof)")
	root.PersistentFlags().StringArrayVar(&f.pluginDirs, "plugin-dir", nil, "directory of bench-plugin-* executables, searched before "+registry.EnvPath+" (colon-separated) and the shipped plugins beside bench (repeatable; also BENCH_PLUGIN_DIR, one directory)")
	root.PersistentFlags().SetAnnotation("plugin-dir", flagconfig.NoSplit, []string{"true"})
	addRunFlags(root.Flags(), o)
	return root
}
