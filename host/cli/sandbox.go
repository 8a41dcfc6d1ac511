package cli

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// sandboxOptions are --sandbox and --sandbox-read, on every command that
// starts plugins: run (and the root's bench --scenario), paper, conform
// and plugins. Like every flag they may come from BENCH_SANDBOX,
// BENCH_SANDBOX_READ or the --config file.
type sandboxOptions struct {
	level string
	read  []string
}

const sandboxHelp = `confine plugins: auto (as far as this machine allows; the default), strict (every layer, or refuse), or off (unconfined); see docs/threat-model.md`

func addSandboxFlags(fs *pflag.FlagSet, o *sandboxOptions) {
	fs.StringVar(&o.level, "sandbox", "auto", sandboxHelp)
	fs.StringArrayVar(&o.read, "sandbox-read", nil, "let a confined plugin also read (and execute) this file or directory (repeatable)")
}

// check checks --sandbox's value before anything runs: exit 2 naming it.
func (o *sandboxOptions) check() error {
	if _, err := sandbox.ParseLevel(o.level); err != nil {
		return withCode(ExitInput, fmt.Errorf("--sandbox: %w", err))
	}
	return nil
}

// plan checks the flags and decides the sandbox on this machine. Under
// auto it prints, on stderr, the one line that says what is missing, if
// anything is. A bad level, a missing --sandbox-read path, or strict on a
// machine that cannot have it, is exit 2.
func (o *sandboxOptions) plan(stderr io.Writer) (*sandbox.Plan, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	level, _ := sandbox.ParseLevel(o.level)
	p, err := client.Plan(sandbox.Config{Level: level, Read: o.read})
	if err != nil {
		return nil, withCode(ExitInput, err)
	}
	if w := p.Warning(); w != "" {
		fmt.Fprintf(stderr, "bench: %s\n", w)
	}
	return p, nil
}
