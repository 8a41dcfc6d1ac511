package cli

import (
	"errors"
	"fmt"

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
	flag, ok := sandboxFlags[ce.Setting]
	if !ok {
		return err
	}
	return fmt.Errorf("%s %s: %w%s", flag, ce.Value, ce.Err, ce.InsteadText(flag+" "))
}
