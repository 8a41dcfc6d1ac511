package launch

import (
	"fmt"
	"os"
	"syscall"

	"github.com/regretbench/regretbench/internal/sandbox"
)

// MaxSocketPath is the longest path a unix socket may have: the kernel's
// sun_path, less its terminating NUL (107 bytes on Linux, 103 on macOS).
var MaxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// randomDigits is the most digits os.MkdirTemp and os.CreateTemp append to
// a name: a uint32 in decimal.
const randomDigits = 10

// SocketPathLen returns the longest path a plugin's unix socket can take,
// with TMPDIR as it is: at every sandbox level (off included) a plugin's
// TMPDIR is its private directory, go-plugin's TMPDIR/plugin-dirN, and
// go-plugin makes the socket there, as pluginN.
func SocketPathLen() int {
	return len(os.TempDir()) + len("/plugin-dir") + randomDigits + len("/plugin") + randomDigits
}

// CheckSocketDir refuses a TMPDIR so long that a plugin could not make
// its socket there, for the error every plugin would fail with ("bind:
// invalid argument") blames the plugin.
func CheckSocketDir() error {
	if n := SocketPathLen(); n > MaxSocketPath {
		return fmt.Errorf("TMPDIR %s is too long for a unix socket path (a plugin's socket would take up to %d bytes, at most %d): set TMPDIR to a shorter directory",
			os.TempDir(), n, MaxSocketPath)
	}
	return nil
}

// Plan decides the sandbox cfg asks for on this machine (cfg.Plan), and
// refuses, as CheckSocketDir does, one under which no plugin could make
// its socket: what every command that launches plugins checks before the
// first.
func Plan(cfg sandbox.Config) (*sandbox.Plan, error) {
	p, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	if err := CheckSocketDir(); err != nil {
		return nil, err
	}
	return &p, nil
}
