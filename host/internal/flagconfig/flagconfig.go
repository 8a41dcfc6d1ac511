// Package flagconfig fills a cobra command's unset flags from environment
// variables (PREFIX_<FLAG>) and a config file (--config, or
// PREFIX_CONFIG), so that flags stay the single source of truth and the
// environment and the file only fill the gaps. The command line beats the
// environment, which beats the file.
//
// The config file is read through safeio (a regular file, bounded in size
// and, as YAML, in depth and aliases), and each of its top-level keys must
// name a flag: a typo, a shorthand, a list for a flag of one value or a
// mapping is refused, naming the key, its line and the flag meant.
package flagconfig

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// CommandLineOnly annotates a flag that PREFIX_<FLAG> and the config file
// do not set: one named like another command's flag of another meaning
// (bench conform's --seed, a seed of its sessions, not the scenario's).
const CommandLineOnly = "bench_command_line_only"

// NoSplit annotates a repeatable flag whose PREFIX_<FLAG> variable holds
// one value, commas and all (bench's --with specs hold commas themselves,
// and a directory may): one value per variable; a config file takes a
// list. The variable of any other repeatable flag is split on commas.
const NoSplit = "bench_no_split"

// ConfigFlag is the flag naming the config file; it cannot itself be set
// from the file.
const ConfigFlag = "config"

// Bind fills every flag of cmd the user did not set from the environment
// variable prefix_<FLAG> (the flag's name in upper case, dashes as
// underscores) and from the config file that cmd's --config flag, or else
// the variable prefix_CONFIG, names. It returns the config file's path, ""
// when there is none. An error about the file is "config PATH: ..."; one
// about a value is "--FLAG from PREFIX_FLAG or the config file (VALUE):
// ...".
func Bind(cmd *cobra.Command, prefix string) (string, error) {
	v := viper.New()
	v.SetEnvPrefix(prefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	cfg, _ := cmd.Flags().GetString(ConfigFlag)
	if cfg == "" {
		cfg = v.GetString(ConfigFlag)
	}
	if cfg != "" {
		keys, err := readConfig(v, cfg)
		if err == nil {
			err = checkKeys(cmd, keys)
		}
		if err != nil {
			return "", fmt.Errorf("config %s: %w", cfg, err)
		}
	}
	var err error
	fs := cmd.Flags()
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == ConfigFlag || f.Annotations[CommandLineOnly] != nil || !v.IsSet(f.Name) {
			return
		}
		val := v.Get(f.Name)
		for _, s := range values(f, val) {
			if e := fs.Set(f.Name, strings.TrimSpace(s)); e != nil {
				err = fmt.Errorf("--%s from %s_%s or the config file (%v): %w", f.Name, strings.ToUpper(prefix), strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")), val, e)
				return
			}
		}
	})
	return cfg, err
}

// values splits val, as viper holds it for flag f, into the values to set
// in turn: a list's elements, a variable's comma-separated values for a
// repeatable flag not annotated NoSplit, else val alone.
func values(f *pflag.Flag, val any) []string {
	switch x := val.(type) {
	case []any:
		vals := make([]string, 0, len(x))
		for _, e := range x {
			vals = append(vals, fmt.Sprint(e))
		}
		return vals
	case string:
		if t := f.Value.Type(); (t == "stringArray" || t == "stringSlice") && f.Annotations[NoSplit] == nil {
			return strings.Split(x, ",")
		}
		return []string{x}
	}
	return []string{fmt.Sprint(val)}
}
