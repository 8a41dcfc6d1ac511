package seed

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// SecretLen is the length of a secret seed in bytes: 256 bits.
const SecretLen = 32

// ErrInvalid is wrapped by every error of Parse and UnmarshalJSON, so that a
// caller can name the flag, file or field at fault around it.
var ErrInvalid = errors.New("invalid seed")

// Seed is a scenario seed: either a public integer (a scenario file's
// `seed: 42`, `--seed 42`) or a 256-bit secret (`--seed random`, or `0x`
// followed by 64 hex digits). The zero Seed is the integer 0.
//
// An integer seed keys the reward streams and the policy seed by plain
// hashes of the integer, as it always has: anyone who knows it and the
// means can recompute the noise. A secret seed keys them by HMACs keyed by
// the secret (host/env), so that nothing a plugin receives lets it be
// computed (design §4, sealed runs).
//
// Seeds are comparable with ==: equal seeds give equal reward streams.
type Seed struct {
	secret bool
	n      uint64          // the integer, when !secret
	key    [SecretLen]byte // the secret, when secret
}

// Int returns the integer seed n.
func Int(n uint64) Seed { return Seed{n: n} }

// FromKey returns the secret seed whose 256 bits are key.
func FromKey(key [SecretLen]byte) Seed { return Seed{secret: true, key: key} }

// Random draws a secret seed from the operating system's CSPRNG
// (crypto/rand).
func Random() (Seed, error) {
	var k [SecretLen]byte
	if _, err := rand.Read(k[:]); err != nil {
		return Seed{}, fmt.Errorf("drawing a secret seed from the OS: %w", err)
	}
	return FromKey(k), nil
}

// Secret reports whether s is a 256-bit secret rather than an integer.
func (s Seed) Secret() bool { return s.secret }

// Uint64 returns the integer of an integer seed; ok is false for a secret.
func (s Seed) Uint64() (n uint64, ok bool) { return s.n, !s.secret }

// Key returns the 256 bits of a secret seed; ok is false for an integer.
func (s Seed) Key() (key [SecretLen]byte, ok bool) { return s.key, s.secret }

// String is the seed as Parse reads it: the integer in decimal, or "0x"
// followed by the secret's 64 lower-case hex digits. It shows a secret in
// full: use Abbrev where the secret is not needed.
func (s Seed) String() string {
	if !s.secret {
		return strconv.FormatUint(s.n, 10)
	}
	return "0x" + hex.EncodeToString(s.key[:])
}

// Abbrev is the seed for messages that need to tell seeds apart but not
// to reproduce a run: an integer in full, a secret as "0x" and its first 8
// hex digits followed by "…" (32 of its 256 bits, which leaves it secret).
func (s Seed) Abbrev() string {
	if !s.secret {
		return s.String()
	}
	return "0x" + hex.EncodeToString(s.key[:4]) + "…"
}

// Parse reads a seed: a decimal integer in 0..2^64-1 without sign or
// leading zeros, or "0x" (or "0X") followed by exactly 64 hex digits, a
// secret. Nothing else is accepted, surrounding space included: a short
// hex number such as 0x2a is refused rather than read as an integer, so
// that a secret missing a digit is never taken for a public integer.
// Errors wrap ErrInvalid and do not quote a would-be secret.
func Parse(text string) (Seed, error) {
	if text == "" {
		return Seed{}, fmt.Errorf("%w: empty; want an integer or 0x followed by 64 hex digits", ErrInvalid)
	}
	if len(text) >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') {
		return parseSecret(text[2:])
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < '0' || c > '9' {
			what := fmt.Sprintf("%q is not a digit", c)
			switch {
			case i == 0 && c == '-':
				what = "negative"
			case i == 0 && c == '+':
				what = "a sign"
			}
			return Seed{}, fmt.Errorf("%w: %s: %s; want a non-negative decimal integer or 0x followed by 64 hex digits", ErrInvalid, quoteShort(text), what)
		}
	}
	if len(text) > 1 && text[0] == '0' {
		return Seed{}, fmt.Errorf("%w: %s: leading zero (octal?); write the integer in decimal without leading zeros", ErrInvalid, quoteShort(text))
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return Seed{}, fmt.Errorf("%w: %s: out of range: an integer seed is at most %d (a secret seed is 0x followed by 64 hex digits)", ErrInvalid, quoteShort(text), uint64(1<<64-1))
	}
	return Int(n), nil
}

// parseSecret reads the hex digits after "0x".
func parseSecret(digits string) (Seed, error) {
	for i := 0; i < len(digits); i++ {
		if !isHex(digits[i]) {
			return Seed{}, fmt.Errorf("%w: 0x...: %q at position %d after 0x is not a hex digit (a secret seed is 0x followed by 64 hex digits)", ErrInvalid, digits[i], i+1)
		}
	}
	if len(digits) != 2*SecretLen {
		hint := ""
		if len(digits) > 0 && len(digits) <= 16 {
			n, _ := strconv.ParseUint(digits, 16, 64)
			hint = fmt.Sprintf(" (for the integer seed %d, write it in decimal)", n)
		}
		return Seed{}, fmt.Errorf("%w: 0x followed by %d hex digits; a secret seed has exactly %d%s", ErrInvalid, len(digits), 2*SecretLen, hint)
	}
	var k [SecretLen]byte
	if _, err := hex.Decode(k[:], []byte(digits)); err != nil {
		return Seed{}, fmt.Errorf("%w: 0x...: %w", ErrInvalid, err) // unreachable: every digit was checked
	}
	return FromKey(k), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// quoteShort quotes a refused input, cut to 24 bytes.
func quoteShort(s string) string {
	if len(s) > 24 {
		return strconv.Quote(s[:21]) + "..."
	}
	return strconv.Quote(s)
}

// MarshalJSON writes an integer seed as a JSON number, so that results
// files of integer seeds read as they always have, and a secret as the
// string "0x" + 64 hex digits.
func (s Seed) MarshalJSON() ([]byte, error) {
	if !s.secret {
		return strconv.AppendUint(nil, s.n, 10), nil
	}
	return []byte(`"` + s.String() + `"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes: a non-negative integer
// number, or a string holding 0x and 64 hex digits. null leaves s as it
// is, as for any other JSON value.
func (s *Seed) UnmarshalJSON(data []byte) error {
	text := string(data)
	switch {
	case text == "null":
		return nil
	case len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"':
		body := text[1 : len(text)-1]
		if len(body) < 2 || body[0] != '0' || (body[1] != 'x' && body[1] != 'X') {
			return fmt.Errorf("%w: a string seed is a secret, 0x followed by 64 hex digits; an integer seed is a JSON number", ErrInvalid)
		}
		v, err := parseSecret(body[2:])
		if err != nil {
			return err
		}
		*s = v
		return nil
	}
	v, err := Parse(text)
	if err != nil || v.secret {
		return fmt.Errorf("%w: want a non-negative integer or a string \"0x\" followed by 64 hex digits, got %s", ErrInvalid, quoteShort(text))
	}
	*s = v
	return nil
}

// MarshalYAML writes an integer seed as a YAML integer and a secret as the
// string "0x" + 64 hex digits (scenario files, bench scenarios show).
func (s Seed) MarshalYAML() (any, error) {
	if !s.secret {
		return s.n, nil
	}
	return s.String(), nil
}
