package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Setting names the part of a Config an error is about. A command maps
// it to its own flag or configuration key (bench's: --sandbox,
// --sandbox-read, --limit-by, --limit-memory); this package names no
// flag.
type Setting int

// The settings a ConfigError may be about.
const (
	SettingLevel       Setting = iota + 1 // Config.Level
	SettingRead                           // one path of Config.Read
	SettingLimitBy                        // Config.Limits.By
	SettingLimitMemory                    // Config.Limits.Memory
)

// String names the setting in a sentence: "level", "read path",
// "limit mechanism", "memory limit".
func (s Setting) String() string {
	switch s {
	case SettingLevel:
		return "level"
	case SettingRead:
		return "read path"
	case SettingLimitBy:
		return "limit mechanism"
	case SettingLimitMemory:
		return "memory limit"
	}
	return fmt.Sprintf("setting %d", int(s))
}

// ConfigError is what a Config asks that cannot be had: which setting,
// which value, why, and what other values of the setting would do.
// Config.Plan, ParseBy and Limits' checks return it.
type ConfigError struct {
	Setting Setting
	// Value is the value at fault, as given ("strict", "/opt/data",
	// "1GiB").
	Value string
	// Err says why.
	Err error
	// Instead lists other values of the setting and what each would do,
	// for the error's last words: {"auto", "runs them under what it
	// allows"}.
	Instead []Alternative
}

// Alternative is another value of a setting, and what it would do.
type Alternative struct {
	Value, Does string
}

// Error says "sandbox SETTING VALUE: WHY (VALUE2 DOES2, ...)".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("sandbox %s %s: %v%s", e.Setting, e.Value, e.Err, e.InsteadText(""))
}

// InsteadText writes e.Instead as the end of an error, each value after
// prefix (a command passes its flag: "--sandbox "): " (prefix auto runs
// them under what it allows, prefix off runs them unconfined)"; "" when
// there is no alternative.
func (e *ConfigError) InsteadText(prefix string) string {
	if len(e.Instead) == 0 {
		return ""
	}
	parts := make([]string, len(e.Instead))
	for i, a := range e.Instead {
		parts[i] = prefix + a.Value + " " + a.Does
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Unwrap returns e.Err.
func (e *ConfigError) Unwrap() error { return e.Err }

// strictUnavailable is the error of Config.Plan for Strict on a machine
// that cannot have it: why, and what the other levels in instead would
// do.
func strictUnavailable(why string, instead ...Level) error {
	e := &ConfigError{Setting: SettingLevel, Value: Strict.String(), Err: errors.New(why)}
	for _, l := range instead {
		does := "runs them unconfined"
		if l == Auto {
			does = "runs them under what it allows"
		}
		e.Instead = append(e.Instead, Alternative{l.String(), does})
	}
	return e
}
