// Package cli is the bench command line: it parses flags (cobra, with viper
// filling unset flags from BENCH_* environment variables and a config file),
// wires the libraries together and renders their results.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/internal/safeio"
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
		var coded *exitError // a gate regression (exit 1) is never a usage error
		if ExitCode(err) == ExitFailure && !errors.As(err, &coded) && isUsage(err) {
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
// (--plugin-dir, and the --config file bindViper read). The root fills
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
			if f.config, err = bindViper(cmd); err != nil {
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
	root.PersistentFlags().String("config", "", "config file (YAML) with flag values; also BENCH_CONFIG")
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of bench itself to this file (go tool pprof)")
	root.PersistentFlags().StringArrayVar(&f.pluginDirs, "plugin-dir", nil, "directory of bench-plugin-* executables, searched before "+registry.EnvPath+" (colon-separated) and the shipped plugins beside bench (repeatable; also BENCH_PLUGIN_DIR, one directory)")
	addRunFlags(root.Flags(), o)
	return root
}

// Bounds on the --config file: it holds flag values, so a few KB would do.
const (
	maxConfigSize  = 1 << 20
	maxConfigDepth = 16
	maxConfigNodes = 10_000
)

// configKey is a top-level key of the --config file: its spelling in the
// file, its line (0 when the format does not say) and the shape of its
// value.
type configKey struct {
	name  string
	line  int
	shape string // "" for a scalar, "a list" or "a mapping"
	value any    // as viper holds it, for messages
}

// where says where key is, for messages: ` (line N)` or nothing.
func (k configKey) where() string {
	if k.line > 0 {
		return fmt.Sprintf(" (line %d)", k.line)
	}
	return ""
}

// readConfig reads the --config file into v as viper's ReadInConfig
// would, but refuses at once what is not a regular file (a FIFO blocked
// forever, /dev/zero read until out of memory), a file over
// maxConfigSize, and YAML nested or aliased beyond the bounds (viper
// expands every alias). It returns the file's top-level keys, as the file
// spells them when it is YAML (viper lowercases them).
func readConfig(v *viper.Viper, path string) ([]configKey, error) {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	if !slices.Contains(viper.SupportedExts, ext) {
		return nil, fmt.Errorf("unsupported config type %q: the file name must end in one of .%s", ext, strings.Join(viper.SupportedExts, ", ."))
	}
	data, err := safeio.ReadFile(path, maxConfigSize)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if ext == "yaml" || ext == "yml" {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("invalid YAML: %w", err)
		}
		if err := safeio.CheckYAML(&doc, safeio.YAMLLimits{Depth: maxConfigDepth, Nodes: maxConfigNodes}); err != nil {
			return nil, err
		}
	}
	v.SetConfigType(ext)
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	settings := v.AllSettings() // the file's alone: nothing else is set yet
	shape := func(x any) string {
		switch x.(type) {
		case []any:
			return "a list"
		case map[string]any:
			return "a mapping"
		}
		return ""
	}
	var keys []configKey
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			k := configKey{name: m[i].Value, line: m[i].Line}
			if val := m[i+1]; val.Kind == yaml.SequenceNode || val.Kind == yaml.AliasNode && val.Alias != nil && val.Alias.Kind == yaml.SequenceNode {
				k.shape = "a list"
			} else if val.Kind == yaml.MappingNode || val.Kind == yaml.AliasNode && val.Alias != nil && val.Alias.Kind == yaml.MappingNode {
				k.shape = "a mapping"
			}
			k.value = settings[strings.ToLower(k.name)]
			keys = append(keys, k)
		}
		return keys, nil
	}
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		keys = append(keys, configKey{name: name, shape: shape(settings[name]), value: settings[name]})
	}
	return keys, nil
}

// checkConfigKeys refuses a key of the --config file that sets nothing:
// before, a typo (step_timeout for step-timeout) or a key of no flag was
// ignored without a word, so the run went ahead with the default. A key
// is a flag's name, for the command being run (its own flags and the
// root's persistent ones). A key naming a flag of another bench command
// is ignored: one config file may serve several commands (out: for bench
// merge, title: for bench report), and refusing it would make that
// impossible, while a flag of no command at all can only be a mistake.
// A list for a flag that takes one value is refused too: viper set each
// element in turn, so that `at: [10, 20]` meant --at 20.
func checkConfigKeys(cmd *cobra.Command, keys []configKey) error {
	fs := cmd.Flags()
	seen := map[string]configKey{}
	for _, k := range keys {
		name := strings.ToLower(k.name) // viper's keys are case-insensitive
		if was, dup := seen[name]; dup {
			return fmt.Errorf("key %q%s repeats key %q%s: keys are case-insensitive", k.name, k.where(), was.name, was.where())
		}
		seen[name] = k
		if name == "config" || name == "help" {
			return fmt.Errorf("key %q%s: --%s cannot be set in a config file", k.name, k.where(), name)
		}
		f := fs.Lookup(name)
		if f == nil {
			if cmds := commandsWithFlag(cmd.Root(), name); len(cmds) > 0 {
				continue // another command's: see above
			}
			return fmt.Errorf("unknown key %q%s: no bench command has a flag --%s%s", k.name, k.where(), name, suggestFlag(cmd, name))
		}
		_, isList := f.Value.(pflag.SliceValue)
		switch {
		case k.shape == "a mapping":
			return fmt.Errorf("key %q%s: a mapping (%v), but --%s takes a value", k.name, k.where(), k.value, f.Name)
		case k.shape == "a list" && !isList:
			return fmt.Errorf("key %q%s: a list (%v), but --%s takes one value (only the last element was used)", k.name, k.where(), k.value, f.Name)
		}
	}
	return nil
}

// commandsWithFlag lists the commands under c (c included) that have a
// flag name, by their paths.
func commandsWithFlag(c *cobra.Command, name string) []string {
	var out []string
	if c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil {
		out = append(out, c.CommandPath())
	}
	for _, sub := range c.Commands() {
		out = append(out, commandsWithFlag(sub, name)...)
	}
	return out
}

// suggestFlag returns "; did you mean --NAME?" for the flag of cmd, or
// else of another command, closest to key (the flag of a shorthand,
// dashes for underscores, or within an edit distance of 1, 2 for longer
// keys), or "".
func suggestFlag(cmd *cobra.Command, key string) string {
	if len(key) == 1 { // ShorthandLookup panics on longer names
		if f := cmd.Flags().ShorthandLookup(key); f != nil {
			return fmt.Sprintf("; did you mean --%s (keys are flag names, not shorthands)?", f.Name)
		}
	}
	norm := strings.NewReplacer("_", "-", " ", "-").Replace(key)
	limit := 1
	if len(norm) > 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	consider := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" || f.Name == "config" {
				return
			}
			if d := editDistance(norm, f.Name); d < bestD || d == bestD && f.Name < best {
				best, bestD = f.Name, d
			}
		})
	}
	consider(cmd.Flags())
	if best != "" {
		return fmt.Sprintf("; did you mean --%s?", best)
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		consider(c.Flags())
		consider(c.PersistentFlags())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cmd.Root())
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean --%s (a flag of %s)?", best, strings.Join(commandsWithFlag(cmd.Root(), best), ", "))
}

// editDistance is the edit distance between a and b, in bytes: the
// insertions, deletions, substitutions and swaps of adjacent bytes (as in
// "titel") that turn one into the other (optimal string alignment).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// commandLineOnly annotates a flag that BENCH_<FLAG> and the config file
// do not set: one named like another command's flag of another meaning
// (bench conform's --seed, a seed of its sessions, not the scenario's).
const commandLineOnly = "bench_command_line_only"

// bindViper fills every flag the user did not set from BENCH_<FLAG>
// environment variables and the config file, so flags stay the single
// source of truth and viper only fills the gaps. It returns the config
// file's path, "" when there is none.
func bindViper(cmd *cobra.Command) (string, error) {
	v := viper.New()
	v.SetEnvPrefix("BENCH")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	cfg, _ := cmd.Flags().GetString("config")
	if cfg == "" {
		cfg = v.GetString("config")
	}
	if cfg != "" {
		keys, err := readConfig(v, cfg)
		if err == nil {
			err = checkConfigKeys(cmd, keys)
		}
		if err != nil {
			return "", withCode(ExitInput, fmt.Errorf("config %s: %w", cfg, err))
		}
	}
	var err error
	fs := cmd.Flags()
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == "config" || f.Annotations[commandLineOnly] != nil || !v.IsSet(f.Name) {
			return
		}
		val := v.Get(f.Name)
		var vals []string
		switch x := val.(type) {
		case []any:
			for _, e := range x {
				vals = append(vals, fmt.Sprint(e))
			}
		case string:
			// --with specs hold commas themselves, and a directory may:
			// one spec, one directory per variable (a config file takes
			// a list).
			if (f.Value.Type() == "stringArray" || f.Value.Type() == "stringSlice") && f.Name != "with" && f.Name != "plugin-dir" {
				vals = strings.Split(x, ",")
			} else {
				vals = []string{x}
			}
		default:
			vals = []string{fmt.Sprint(x)}
		}
		for _, s := range vals {
			if e := fs.Set(f.Name, strings.TrimSpace(s)); e != nil {
				err = withCode(ExitInput, fmt.Errorf("--%s from BENCH_%s or the config file (%v): %w", f.Name, strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")), val, e))
				return
			}
		}
	})
	return cfg, err
}
