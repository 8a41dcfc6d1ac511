// Package cmdutil holds what bench's commands share, in the manner of
// gh's pkg/cmdutil: the Factory each command's NewCmdX(f, runF) is given
// (output streams, the plugin search path, the --config file read), the
// flags several commands register (the sandbox's), the naming of a
// library's option errors by bench's flags (Flagged), the checks of an
// output path before anything runs (CheckOut, CheckOutDir), and the
// marking of usage errors (Run prints the usage hint after them).
//
// The commands live one package each under host/cli (gate, merge, plot,
// report, plugins, scenarios, conform); host/cli assembles them into
// bench and holds the run, paper and board commands.
package cmdutil

import (
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/registry"
)

// DefaultStartTimeout is --start-timeout's default on every command that
// launches plugins.
const DefaultStartTimeout = 10 * time.Second

// Factory holds what bench's commands share: the output streams (Stderr
// escapes what it is given; Term is the raw stderr, for progress bars),
// and the root's persistent flags (every --plugin-dir, and the --config
// file flagconfig.Bind read). The root fills PluginDirs and Config
// before any command's RunE; commands only read them. Each command's own
// flags live in its own options struct, built by its NewCmdX(f, runF).
type Factory struct {
	Stdout, Stderr io.Writer
	Term           io.Writer // the raw stderr: progress bars only; nil: Stderr
	PluginDirs     []string  // every --plugin-dir, in order
	Config         string    // the --config file read, "" when none
}

// Plugins is the plugin search path: every --plugin-dir, then
// BENCH_PLUGIN_PATH's entries, then the shipped plugins beside bench.
func (f *Factory) Plugins() registry.Path {
	return registry.NewPath(f.PluginDirs, os.Getenv(registry.EnvPath))
}

// ProgressOut is where progress bars are drawn: the raw stderr, which
// progress.New checks is a terminal. Bars escape the labels they show.
func (f *Factory) ProgressOut() io.Writer {
	if f.Term != nil {
		return f.Term
	}
	return f.Stderr
}

// AddRootFlags registers on root the persistent flags whose values f
// carries: --config and --plugin-dir.
func AddRootFlags(root *cobra.Command, f *Factory) {
	root.PersistentFlags().String("config", "", "config file (YAML) with flag values; also BENCH_CONFIG")
	root.PersistentFlags().StringArrayVar(&f.PluginDirs, "plugin-dir", nil, "directory of bench-plugin-* executables, searched before "+registry.EnvPath+" (colon-separated) and the shipped plugins beside bench (repeatable; also BENCH_PLUGIN_DIR, one directory)")
	root.PersistentFlags().SetAnnotation("plugin-dir", flagconfig.NoSplit, []string{"true"})
}

// Bind fills the flags of cmd that were not given from the BENCH_*
// environment variables and the --config file (flagconfig.Bind), and
// records the file read in f.Config: the root's PersistentPreRunE.
func (f *Factory) Bind(cmd *cobra.Command) error {
	var err error
	if f.Config, err = flagconfig.Bind(cmd, "BENCH"); err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	return nil
}

// Changed reports whether the flag name was given (on the command line, in
// BENCH_* or in the config file).
func Changed(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
