package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
)

// pluginsOptions are the options of bench plugins: the sandbox its
// plugins are started under.
type pluginsOptions struct {
	f            *factory
	startTimeout time.Duration // for each plugin's handshake
	sandbox      sandboxOptions
}

// newCmdPlugins returns bench plugins. runF, when not nil, receives the
// options in place of listing (for tests).
func newCmdPlugins(f *factory, runF func(*pluginsOptions) error) *cobra.Command {
	o := &pluginsOptions{f: f, startTimeout: defaultStartTimeout}
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins of the plugin search path with their parameters",
		Long: `List every bench-plugin-NAME executable of the plugin search path: its
version, protocol, path, SHA-256, parameters (type, default, the values
it accepts, doc) and diagnostics. Each plugin is started to describe
itself, then stopped.

The search path is every --plugin-dir, in order, then the entries of
BENCH_PLUGIN_PATH (colon-separated), then the shipped plugins beside
bench: plugins/ beside the bench executable (make build), then bench's
own directory (go install, make install). The first lines list it. A
name is the first executable of that name on the path; each plugin's
path line says which directory it came from, and a name found again in
a later directory says which executables it shadows ("shadows PATH").

A plugin that cannot be started or described, or whose Describe declares
parameters bench cannot use, is marked FAILED with the reason, and the
others are still listed. Exit codes: 0 when every plugin described
itself; 3 when at least one FAILED (as a run exits 3 when a policy
failed: the listing is complete, but a scenario naming that plugin would
fail), so that scripts and CI notice a broken plugin; 2 when a
--plugin-dir cannot be read (a BENCH_PLUGIN_PATH entry or a shipped
directory that does not exist is skipped, and said so).

A plugin whose Describe NAME differs from its file name is listed with a
warning, not marked FAILED: renaming an executable is a legitimate way to
install two versions of one plugin side by side.

Plugins are started under the sandbox (--sandbox), as a run starts them;
the first line says which.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.startTimeout <= 0 {
				return withCode(ExitInput, fmt.Errorf("--start-timeout %v: must be > 0, e.g. 30s or 5m", o.startTimeout))
			}
			if runF != nil {
				return runF(o)
			}
			list := o.f.plugins().List()
			if err := list.FlagErr(); err != nil {
				return withCode(ExitInput, err)
			}
			plan, err := o.sandbox.plan(o.f.stderr)
			if err != nil {
				return err
			}
			failed := run.WritePlugins(o.f.stdout, o.f.stderr, list, o.startTimeout, plan)
			if len(failed) > 0 {
				return withCode(ExitPolicy, fmt.Errorf("%d of %d plugin(s) FAILED to describe themselves (the others are listed): %s",
					len(failed), len(list.Plugins), strings.Join(failed, ", ")))
			}
			return nil
		},
	}
	addSandboxFlags(cmd.Flags(), &o.sandbox)
	cmd.Flags().DurationVar(&o.startTimeout, "start-timeout", defaultStartTimeout, "fail a plugin that does not complete its handshake and Describe within this time")
	return cmd
}

// scenariosOptions are the options of bench scenarios, which has no flags
// of its own.
type scenariosOptions struct {
	f *factory
}

// newCmdScenarios returns bench scenarios and its subcommand show. runF,
// when not nil, receives the options in place of listing (for tests).
func newCmdScenarios(f *factory, runF func(*scenariosOptions) error) *cobra.Command {
	o := &scenariosOptions{f: f}
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the shipped scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return scenario.WriteShipped(o.f.stdout)
		},
	}
	cmd.AddCommand(newCmdScenariosShow(f, nil))
	return cmd
}

// showOptions are the argument of bench scenarios show.
type showOptions struct {
	f        *factory
	scenario string // a shipped name or a file
}

// newCmdScenariosShow returns bench scenarios show. runF, when not nil,
// receives the options in place of printing (for tests).
func newCmdScenariosShow(f *factory, runF func(*showOptions) error) *cobra.Command {
	o := &showOptions{f: f}
	return &cobra.Command{
		Use:       "show NAME|FILE",
		Short:     "Print a scenario as resolved YAML (defaults filled in)",
		Args:      cobra.ExactArgs(1),
		ValidArgs: scenario.Shipped(), // sorted
		RunE: func(cmd *cobra.Command, args []string) error {
			o.scenario = args[0]
			if runF != nil {
				return runF(o)
			}
			sc, err := scenario.Resolve(o.scenario)
			if err != nil {
				return withCode(ExitInput, err)
			}
			b, err := sc.YAML()
			if err != nil {
				return err
			}
			_, err = o.f.stdout.Write(b)
			return err
		},
	}
}
