package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/regretbench/regretbench/internal/sandbox"
)

// sandboxFlags are the flags of the sandbox's settings.
var sandboxFlags = map[sandbox.Setting]string{
	sandbox.SettingLevel:       "--sandbox",
	sandbox.SettingRead:        "--sandbox-read",
	sandbox.SettingLimitBy:     "--limit-by",
	sandbox.SettingLimitMemory: "--limit-memory",
}

// sandboxFlagError says a sandbox.ConfigError in flags: "--sandbox
// strict: ... (--sandbox off runs them unconfined)". Other errors are
// returned as they are.
func sandboxFlagError(err error) error {
	var ce *sandbox.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	if msg, ok := sandboxFlagText(ce); ok {
		return &flagError{strings.Replace(err.Error(), ce.Error(), msg, 1), err}
	}
	return err
}

// sandboxFlagText is ce said in flags; false for a setting no flag sets.
func sandboxFlagText(ce *sandbox.ConfigError) (string, bool) {
	flag, ok := sandboxFlags[ce.Setting]
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s %s: %v%s", flag, ce.Value, ce.Err, ce.InsteadText(flag+" ")), true
}
