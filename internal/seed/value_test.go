package seed

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const hex64 = "00112233445566778899aabbccddeeff0123456789abcdef0fedcba987654321"

// TestParseRoundTrip: every seed Parse accepts prints (String) as the
// canonical form Parse reads back to the same seed, and as JSON (numbers
// for integers, strings for secrets) reads back to the same seed too.
func TestParseRoundTrip(t *testing.T) {
	for _, c := range []struct {
		in, canon, json string
		secret          bool
	}{
		{"0", "0", "0", false},
		{"1", "1", "1", false},
		{"271828", "271828", "271828", false},
		{"18446744073709551615", "18446744073709551615", "18446744073709551615", false},
		{"0x" + hex64, "0x" + hex64, `"0x` + hex64 + `"`, true},
		{"0X" + strings.ToUpper(hex64), "0x" + hex64, `"0x` + hex64 + `"`, true},
		{"0x" + strings.Repeat("0", 64), "0x" + strings.Repeat("0", 64), `"0x` + strings.Repeat("0", 64) + `"`, true},
	} {
		s, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if s.Secret() != c.secret || s.String() != c.canon {
			t.Errorf("Parse(%q) = %v (secret %v), want %s (secret %v)", c.in, s, s.Secret(), c.canon, c.secret)
		}
		if again, err := Parse(s.String()); err != nil || again != s {
			t.Errorf("Parse(%q).String() = %q reads back as %v, %v", c.in, s.String(), again, err)
		}
		b, err := json.Marshal(s)
		if err != nil || string(b) != c.json {
			t.Errorf("json.Marshal(%v) = %s, %v; want %s", s, b, err, c.json)
		}
		var back Seed
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want %v", b, back, err, s)
		}
		y, err := s.MarshalYAML()
		switch {
		case err != nil:
			t.Errorf("MarshalYAML(%v): %v", s, err)
		case c.secret && y != c.canon:
			t.Errorf("MarshalYAML(%v) = %#v, want the string %s", s, y, c.canon)
		case !c.secret:
			if n, _ := s.Uint64(); y != n {
				t.Errorf("MarshalYAML(%v) = %#v, want the integer %d", s, y, n)
			}
		}
	}
}

// TestParseMalformed: every malformed seed is refused with ErrInvalid and
// a reason, never quoting a would-be secret.
func TestParseMalformed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"0x" + hex64[:63], "0x followed by 63 hex digits; a secret seed has exactly 64"},
		{"0x" + hex64 + "0", "0x followed by 65 hex digits; a secret seed has exactly 64"},
		{"0x", "0x followed by 0 hex digits"},
		{"0x" + hex64[:20] + "g" + hex64[21:], `'g' at position 21 after 0x is not a hex digit`},
		{"0x" + hex64[:63] + " ", `' ' at position 64 after 0x is not a hex digit`},
		{"0x2a", "for the integer seed 42, write it in decimal"},
		{"-1", "negative"},
		{"+1", "a sign"},
		{"18446744073709551616", "out of range: an integer seed is at most 18446744073709551615"},
		{"99999999999999999999999", "out of range"},
		{"1.5", `'.' is not a digit`},
		{"1e3", `'e' is not a digit`},
		{"1_000", `'_' is not a digit`},
		{" 42", `' ' is not a digit`},
		{"42\n", `'\n' is not a digit`},
		{"010", "leading zero"},
		{"random", `'r' is not a digit`},
		{hex64, "'a' is not a digit"},
	} {
		s, err := Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", c.in, s)
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v; want ErrInvalid and %q", c.in, err, c.want)
		}
		if strings.HasPrefix(c.in, "0x") && len(c.in) > 20 && strings.Contains(err.Error(), c.in[2:20]) {
			t.Errorf("Parse(%q): the error quotes the would-be secret: %v", c.in, err)
		}
	}
}

// TestUnmarshalJSONMalformed: a results file's seed is a non-negative
// integer number or a secret's string; nothing else reads.
func TestUnmarshalJSONMalformed(t *testing.T) {
	for _, in := range []string{
		`-1`, `1.5`, `1e3`, `18446744073709551616`, `"42"`, `"0x2a"`, `"0x` + hex64[:63] + `"`,
		`"0x` + hex64 + `0"`, `"\u0030x` + hex64[1:] + `"`, `true`, `[]`, `{}`,
	} {
		var s Seed
		if err := json.Unmarshal([]byte(in), &s); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want an ErrInvalid error", in, s, err)
		}
	}
	s := Int(5)
	if err := json.Unmarshal([]byte(`null`), &s); err != nil || s != Int(5) {
		t.Errorf("null: %v, %v; want the seed unchanged", s, err)
	}
}

// TestSeedKinds: integers and secrets are distinct values, whatever their
// bits; the zero Seed is the integer 0; Abbrev shows 8 of a secret's 64
// digits and an integer in full.
func TestSeedKinds(t *testing.T) {
	var zero Seed
	if zero != Int(0) || zero.Secret() || zero.String() != "0" {
		t.Errorf("zero Seed = %v (secret %v), want the integer 0", zero, zero.Secret())
	}
	if FromKey([SecretLen]byte{}) == Int(0) {
		t.Error("the all-zero secret equals the integer 0")
	}
	a, _ := Parse("0x" + hex64)
	b, _ := Parse("0x" + hex64[:63] + "0")
	if a == b {
		t.Error("secrets differing in the last digit compare equal")
	}
	if k, ok := a.Key(); !ok || k[0] != 0x00 || k[1] != 0x11 || k[31] != 0x21 {
		t.Errorf("Key() = %x, %v", k, ok)
	}
	if _, ok := a.Uint64(); ok {
		t.Error("a secret has an integer")
	}
	if n, ok := Int(9).Uint64(); !ok || n != 9 {
		t.Errorf("Int(9).Uint64() = %d, %v", n, ok)
	}
	if got := a.Abbrev(); got != "0x00112233…" {
		t.Errorf("Abbrev = %q, want 0x00112233…", got)
	}
	if got := Int(42).Abbrev(); got != "42" {
		t.Errorf("Int(42).Abbrev() = %q", got)
	}
}

// TestRandom: Random draws secrets, and never the same one twice.
func TestRandom(t *testing.T) {
	seen := map[Seed]bool{}
	for range 100 {
		s, err := Random()
		if err != nil {
			t.Fatal(err)
		}
		if !s.Secret() || seen[s] {
			t.Fatalf("Random() = %v (secret %v, seen %v)", s, s.Secret(), seen[s])
		}
		seen[s] = true
	}
}
