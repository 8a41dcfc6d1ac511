package flagconfig

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

// Bounds on the config file: it holds flag values, so a few KB would do.
const (
	maxConfigSize  = 1 << 20
	maxConfigDepth = 16
	maxConfigNodes = 10_000
)

// configKey is a top-level key of the config file: its spelling in the
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

// readConfig reads the config file into v as viper's ReadInConfig would,
// but refuses at once what is not a regular file (a FIFO blocked forever,
// /dev/zero read until out of memory), a file over maxConfigSize, and
// YAML nested or aliased beyond the bounds (viper expands every alias).
// It returns the file's top-level keys, as the file spells them when it
// is YAML (viper lowercases them).
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

// checkKeys refuses a key of the config file that sets nothing: before, a
// typo (step_timeout for step-timeout) or a key of no flag was ignored
// without a word, so the run went ahead with the default. A key is a
// flag's name, for the command being run (its own flags and the root's
// persistent ones). A key naming a flag of another command of the same
// root is ignored: one config file may serve several commands (out: for
// bench merge, title: for bench report), and refusing it would make that
// impossible, while a flag of no command at all can only be a mistake. A
// list for a flag that takes one value is refused too: viper set each
// element in turn, so that `at: [10, 20]` meant --at 20.
func checkKeys(cmd *cobra.Command, keys []configKey) error {
	fs := cmd.Flags()
	seen := map[string]configKey{}
	for _, k := range keys {
		name := strings.ToLower(k.name) // viper's keys are case-insensitive
		if was, dup := seen[name]; dup {
			return fmt.Errorf("key %q%s repeats key %q%s: keys are case-insensitive", k.name, k.where(), was.name, was.where())
		}
		seen[name] = k
		if name == ConfigFlag || name == "help" {
			return fmt.Errorf("key %q%s: --%s cannot be set in a config file", k.name, k.where(), name)
		}
		f := fs.Lookup(name)
		if f == nil {
			if cmds := commandsWithFlag(cmd.Root(), name); len(cmds) > 0 {
				continue // another command's: see above
			}
			return fmt.Errorf("unknown key %q%s: no %s command has a flag --%s%s", k.name, k.where(), cmd.Root().Name(), name, suggestFlag(cmd, name))
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
			if f.Hidden || f.Name == "help" || f.Name == ConfigFlag {
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
