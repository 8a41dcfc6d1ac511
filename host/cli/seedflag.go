package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/internal/safeio"
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

// choice returns the seed --seed chooses, nil when it is not given,
// refusing before anything is loaded: --seed together with --seed-file,
// an empty --seed-file and a malformed --seed. Whether a fresh secret
// (--seed random) can be right is run.Options.Check's; the --seed-file
// is read when the scenario is loaded (readSeedFile).
func (o *seedOptions) choice(fs *pflag.FlagSet) (*seed.Choice, error) {
	seedSet, fileSet := changed(fs, "seed"), changed(fs, "seed-file")
	if seedSet && fileSet {
		return nil, withCode(ExitInput, usageError{errors.New("--seed and --seed-file both given (either may come from BENCH_SEED, BENCH_SEED_FILE or the --config file): give one of them")})
	}
	if fileSet && o.file == "" {
		return nil, withCode(ExitInput, usageError{errors.New("--seed-file: empty path")})
	}
	if !seedSet {
		return nil, nil
	}
	c, err := seed.ParseChoice(o.value)
	if err != nil {
		return nil, withCode(ExitInput, fmt.Errorf("--seed: %w (or random, for a secret seed)", err))
	}
	return &c, nil
}

// readSeedFile reads the seed of a --seed-file (seed.ReadFile): a secret
// in a file that its group or others may read draws a warning on stderr,
// not a refusal (seed.Exposed). Errors name the file.
func readSeedFile(path string, stderr io.Writer) (seed.Seed, error) {
	s, err := seed.ReadFile(path, func(path string) ([]byte, error) { return safeio.ReadFile(path, seed.MaxFile) })
	if err != nil {
		return seed.Seed{}, fmt.Errorf("--seed-file %s: %w", path, err)
	}
	if perm, ok := seed.Exposed(path, s); ok {
		fmt.Fprintf(stderr, "bench: warning: --seed-file %s holds a secret seed, but its mode %04o gives its group or others access; chmod 600 %s\n", path, perm, path)
	}
	return s, nil
}

// announceSecret says on stderr, before a run with a secret seed, that its
// seed is secret: the secret itself is shown only once the run is over.
func announceSecret(stderr io.Writer, s seed.Seed, quiet bool) {
	if s.Secret() && !quiet {
		fmt.Fprintln(stderr, "bench: seed: secret (shown after the run)")
	}
}
