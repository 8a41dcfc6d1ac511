package vt

import (
	"reflect"
	"strings"
	"testing"
)

// TestTerminal: what a user is left with after some output, on a
// terminal of 10 columns and 3 rows.
func TestTerminal(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string // successive writes
		want []string
	}{
		{"lines", []string{"a\nb\n"}, []string{"a", "b"}},
		{"carriage return overwrites", []string{"hello\rJ\n"}, []string{"Jello"}},
		{"redraw in place", []string{"x 1\ny 1\n", "\x1b[2A\rx 2\x1b[K\ny 2\x1b[K\n\x1b[J"}, []string{"x 2", "y 2"}},
		{"a sequence split across writes", []string{"x 1\n\x1b[", "1Ax 2\n"}, []string{"x 2"}},
		{"erase to the end of the line", []string{"abcdef\r\x1b[3C\x1b[K\n"}, []string{"abc"}},
		{"erase below", []string{"a\nb\nc", "\x1b[1A\r\x1b[J"}, []string{"a"}},
		{"scrolling keeps the history", []string{"1\n2\n3\n4\n5\n"}, []string{"1", "2", "3", "4", "5"}},
		{"cursor up stops at the top of the screen", []string{"1\n2\n3\n4\n", "\x1b[9AX\n"}, []string{"1", "2", "X", "4"}},
		{"erasing from the top left corner scrolls into the history (tmux)", []string{"a\nb\n", "\x1b[2A\x1b[Jc\n"}, []string{"a", "b", "c"}},
		{"erasing below elsewhere does not", []string{"p\na\n", "\x1b[1A\x1b[Jc\n"}, []string{"p", "c"}},
		{"a full line wraps at the next character", []string{"0123456789\n"}, []string{"0123456789"}},
		{"a long line wraps", []string{"0123456789ab\n"}, []string{"0123456789", "ab"}},
		{"private modes are skipped", []string{"\x1b[?25la\x1b[?25h\n"}, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := New(10, 3)
			for _, w := range tc.in {
				term.Write([]byte(w))
			}
			if got := term.Lines(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("lines %q, want %q", got, tc.want)
			}
		})
	}
}

// TestOnLine: every newline reports the line it leaves.
func TestOnLine(t *testing.T) {
	term := New(20, 5)
	var got []string
	term.OnLine = func(l string) { got = append(got, l) }
	term.Write([]byte("x 1\ny 1\n\x1b[2A\rx 2\x1b[K\ny 2\x1b[K\n"))
	if want := []string{"x 1", "y 1", "x 2", "y 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if s := strings.Join(term.Screen(), "|"); s != "x 2|y 2|||" {
		t.Errorf("screen %q", s)
	}
}
