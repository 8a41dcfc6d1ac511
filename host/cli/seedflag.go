package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/seed"
)

// seedOptions are the flags that set a run's seed (design §4): --seed
// (an integer, random, or a secret 0x + 64 hex digits) and --seed-file,
// which reads one from a file so that a secret never appears on a command
// line (/proc/PID/cmdline is readable by every user of the machine).
type seedOptions struct {
	value string // --seed
	file  string // --seed-file
}

func addSeedFlags(fs *pflag.FlagSet, o *seedOptions) {
	fs.StringVar(&o.value, "seed", "", "override the scenario's `SEED`: an integer; random, a secret drawn from the OS (a sealed run: nothing a plugin receives reveals it; recorded in the results after the run); or 0x followed by 64 hex digits, such a secret given again")
	fs.StringVar(&o.file, "seed-file", "", "read the seed (an integer or 0x followed by 64 hex digits, surrounding space ignored) from this `FILE`, so that a secret stays off the command line; warns when its group or others may access it")
}

// overrides sets the seed the flags choose in ov, refusing before
// anything is loaded --seed with --seed-file, an empty --seed-file and a
// malformed --seed. Whether they can be combined with the run's other
// options is run.Options.Check's; the --seed-file is read when the
// scenario is loaded (run.Overrides.Apply).
func (o *seedOptions) overrides(fs *pflag.FlagSet, ov *run.Overrides) error {
	if cmdutil.Changed(fs, "seed") && cmdutil.Changed(fs, "seed-file") {
		return withCode(ExitInput, cmdutil.UsageError{Err: errors.New("--seed and --seed-file both given (either may come from BENCH_SEED, BENCH_SEED_FILE or the --config file): give one of them")})
	}
	if cmdutil.Changed(fs, "seed-file") {
		if o.file == "" {
			return withCode(ExitInput, cmdutil.UsageError{Err: errors.New("--seed-file: empty path")})
		}
		ov.SeedFile = o.file
	}
	if !cmdutil.Changed(fs, "seed") {
		return nil
	}
	c, err := seed.ParseChoice(o.value)
	if err != nil {
		return withCode(ExitInput, fmt.Errorf("--seed: %w (or random, for a secret seed)", err))
	}
	ov.Seed = &c
	return nil
}
