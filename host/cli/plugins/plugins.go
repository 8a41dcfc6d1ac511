// Package plugins is the bench plugins command: it lists the plugins of
// the plugin search path, each started under the sandbox to describe
// itself (run.WritePlugins), and exits 3 when one failed to.
package plugins

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/run"
)

// Options are the options of bench plugins: the sandbox its plugins are
// started under.
type Options struct {
	F            *cmdutil.Factory
	StartTimeout time.Duration // for each plugin's handshake
	Sandbox      cmdutil.SandboxOptions
}

// NewCmdPlugins returns bench plugins. runF, when not nil, receives the
// options in place of listing (for tests).
func NewCmdPlugins(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
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
			if o.StartTimeout <= 0 {
				return exitcode.With(exitcode.Input, fmt.Errorf("--start-timeout %v: must be > 0, e.g. 30s or 5m", o.StartTimeout))
			}
			if runF != nil {
				return runF(o)
			}
			return listRun(o)
		},
	}
	cmdutil.AddSandboxFlags(cmd.Flags(), &o.Sandbox)
	cmd.Flags().DurationVar(&o.StartTimeout, "start-timeout", cmdutil.DefaultStartTimeout, "fail a plugin that does not complete its handshake and Describe within this time")
	return cmd
}

// listRun lists the plugins of the search path.
func listRun(o *Options) error {
	list := o.F.Plugins().List()
	if err := list.FlagErr(); err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	plan, err := o.Sandbox.Plan(o.F.Stderr)
	if err != nil {
		return err
	}
	failed := run.WritePlugins(o.F.Stdout, o.F.Stderr, list, o.StartTimeout, plan)
	if len(failed) > 0 {
		return exitcode.With(exitcode.Policy, fmt.Errorf("%d of %d plugin(s) FAILED to describe themselves (the others are listed): %s",
			len(failed), len(list.Plugins), strings.Join(failed, ", ")))
	}
	return nil
}
