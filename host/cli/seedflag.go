package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/internal/seed"
)

// seedRandom is the --seed value that draws a secret seed.
const seedRandom = "random"

// maxSeedFile bounds a --seed-file: a seed is at most 66 bytes.
const maxSeedFile = 4096

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

// check refuses, before anything is loaded: --seed together with
// --seed-file; a malformed --seed; and --seed random where a fresh secret
// cannot be right: with --shard (each shard would draw its own secret,
// and their files would not merge) or --resume (a fresh secret never
// matches the earlier run).
func (o *seedOptions) check(fs *pflag.FlagSet, shard bool, resume bool) error {
	seedSet, fileSet := changed(fs, "seed"), changed(fs, "seed-file")
	if seedSet && fileSet {
		return withCode(ExitInput, usageError{errors.New("--seed and --seed-file both given (either may come from BENCH_SEED, BENCH_SEED_FILE or the --config file): give one of them")})
	}
	if fileSet && o.file == "" {
		return withCode(ExitInput, usageError{errors.New("--seed-file: empty path")})
	}
	if !seedSet {
		return nil
	}
	if o.value != seedRandom {
		if _, err := seed.Parse(o.value); err != nil {
			return withCode(ExitInput, fmt.Errorf("--seed: %w (or random, for a secret seed)", err))
		}
		return nil
	}
	switch {
	case shard:
		return withCode(ExitInput, usageError{errors.New("--seed random with --shard: every shard would draw a secret of its own and the shards would not merge; " +
			"write one secret to a file readable only by you and give it to every shard with --seed-file (docs/reliability.md, Sealed runs)")})
	case resume:
		return withCode(ExitInput, usageError{errors.New("--seed random with --resume: a fresh secret never matches the earlier run; " +
			"give that run's seed (its results file's scenario.seed) with --seed-file")})
	}
	return nil
}

// resolve returns the seed the flags set, ok false when neither was
// given. It runs after check: --seed random draws its secret here, and
// --seed-file is read here.
func (o *seedOptions) resolve(fs *pflag.FlagSet, stderr io.Writer) (s seed.Seed, ok bool, err error) {
	switch {
	case changed(fs, "seed-file"):
		s, err = readSeedFile(o.file, stderr)
		if err != nil {
			return seed.Seed{}, false, withCode(ExitInput, err)
		}
		return s, true, nil
	case !changed(fs, "seed"):
		return seed.Seed{}, false, nil
	case o.value == seedRandom:
		s, err = seed.Random()
		if err != nil {
			return seed.Seed{}, false, fmt.Errorf("--seed random: %w", err)
		}
		return s, true, nil
	}
	s, err = seed.Parse(o.value)
	if err != nil {
		return seed.Seed{}, false, withCode(ExitInput, fmt.Errorf("--seed: %w", err))
	}
	return s, true, nil
}

// readSeedFile reads a seed from path: an integer or 0x followed by 64
// hex digits, with surrounding white space (a final newline) ignored. A
// secret in a file that its group or others may read draws a warning on
// stderr, not a refusal: on a cluster the file may sit in a shared
// directory by design (docs/reliability.md, Sealed runs). Errors name the file.
func readSeedFile(path string, stderr io.Writer) (seed.Seed, error) {
	data, err := safeio.ReadFile(path, maxSeedFile)
	if err != nil {
		return seed.Seed{}, fmt.Errorf("--seed-file %s: %w", path, err)
	}
	text := string(bytes.TrimSpace(data))
	if text == seedRandom {
		return seed.Seed{}, fmt.Errorf("--seed-file %s: holds %q, but a seed file holds the seed itself (an integer or 0x followed by 64 hex digits)", path, seedRandom)
	}
	s, err := seed.Parse(text)
	if err != nil {
		return seed.Seed{}, fmt.Errorf("--seed-file %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && s.Secret() && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(stderr, "bench: warning: --seed-file %s holds a secret seed, but its mode %04o gives its group or others access; chmod 600 %s\n", path, fi.Mode().Perm(), path)
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
