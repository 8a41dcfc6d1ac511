package seed

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// RandomChoice is the text of a Choice that draws a fresh secret seed
// (bench run --seed random).
const RandomChoice = "random"

// Choice is a seed as a command's option gives it: a Seed, or Random, a
// secret drawn from the OS when the run starts (Draw).
type Choice struct {
	Random bool
	Seed   Seed // when !Random
}

// ParseChoice reads RandomChoice, or a seed as Parse reads it, whose
// errors it returns.
func ParseChoice(text string) (Choice, error) {
	if text == RandomChoice {
		return Choice{Random: true}, nil
	}
	s, err := Parse(text)
	if err != nil {
		return Choice{}, err
	}
	return Choice{Seed: s}, nil
}

// Draw returns the seed c chooses: its Seed, or a fresh secret (Random).
func (c Choice) Draw() (Seed, error) {
	if c.Random {
		return Random()
	}
	return c.Seed, nil
}

// Announce says on w, before a run with the secret seed s, that its seed
// is secret: the secret itself is shown only once the run is over. It
// says nothing of an integer seed.
func Announce(w io.Writer, s Seed) {
	if s.Secret() {
		fmt.Fprintln(w, "bench: seed: secret (shown after the run)")
	}
}

// MaxFile bounds a seed file (ReadFile): a seed is at most 66 bytes.
const MaxFile = 4096

// ReadFile reads the seed in the file at path, which holds an integer or
// 0x followed by 64 hex digits, surrounding white space (a final newline)
// ignored, with read (for bench, one that refuses anything but a regular
// file and reads at most MaxFile bytes). A seed file holds the seed
// itself: RandomChoice is refused. Errors name no path: the caller names
// the file.
func ReadFile(path string, read func(path string) ([]byte, error)) (Seed, error) {
	data, err := read(path)
	if err != nil {
		return Seed{}, err
	}
	text := string(bytes.TrimSpace(data))
	if text == RandomChoice {
		return Seed{}, fmt.Errorf("holds %q, but a seed file holds the seed itself (an integer or 0x followed by 64 hex digits)", RandomChoice)
	}
	return Parse(text)
}

// Exposed reports whether the file at path, which holds s, exposes a
// secret: s is one, and the file's mode (perm) gives its group or others
// access. That is worth a warning, not a refusal: on a cluster the file
// may sit in a shared directory by design (docs/reliability.md, Sealed
// runs).
func Exposed(path string, s Seed) (perm fs.FileMode, exposed bool) {
	fi, err := os.Stat(path)
	if err != nil || !s.Secret() {
		return 0, false
	}
	perm = fi.Mode().Perm()
	return perm, perm&0o077 != 0
}
