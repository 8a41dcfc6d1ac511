// Package vt is a tiny terminal emulator for tests: it keeps what a
// terminal of a given size would show, screen and history (scrollback),
// after the bytes a program wrote to it, so that a test can tell what a
// user is left with.
//
// It interprets printable characters (one column each), carriage return,
// newline (as a terminal behind a pseudo-terminal that turns "\n" into
// "\r\n" does: to the start of the next line, scrolling the top line into
// the history at the bottom), automatic wrapping at the right margin
// (deferred, as xterm does), and the CSI sequences for cursor moves (A, B,
// C, D) and erasure (J, K). Other escape sequences are skipped. Like tmux
// (its scroll-on-clear option, on by default), erasing the screen from its
// top left corner first scrolls what it holds into the history.
package vt

import "strings"

// Terminal is an emulated terminal. It implements io.Writer; sequences
// split across writes are handled.
type Terminal struct {
	cols, rows int
	history    []string
	screen     [][]rune
	row, col   int
	wrapNext   bool // the last column was written: the next character wraps

	// the escape sequence being read
	state  int // 0 text, 1 after ESC, 2 in CSI
	params []byte

	// OnLine, when set, is called with a line's text (trailing blanks
	// trimmed) whenever a newline leaves it: a draw of that line.
	OnLine func(line string)
}

// New returns an empty terminal of cols columns and rows rows, its cursor
// at the top left corner.
func New(cols, rows int) *Terminal {
	t := &Terminal{cols: cols, rows: rows, screen: make([][]rune, rows)}
	for i := range t.screen {
		t.screen[i] = blank(cols)
	}
	return t
}

func blank(n int) []rune { return []rune(strings.Repeat(" ", n)) }

// Write interprets p.
func (t *Terminal) Write(p []byte) (int, error) {
	for _, r := range string(p) {
		t.put(r)
	}
	return len(p), nil
}

func (t *Terminal) put(r rune) {
	switch t.state {
	case 1:
		if r == '[' {
			t.state, t.params = 2, t.params[:0]
		} else {
			t.state = 0 // a two-character sequence: skipped
		}
		return
	case 2:
		if r >= 0x40 && r <= 0x7e {
			t.state = 0
			t.csi(r, string(t.params))
		} else {
			t.params = append(t.params, byte(r))
		}
		return
	}
	switch r {
	case 0x1b:
		t.state = 1
	case '\r':
		t.col, t.wrapNext = 0, false
	case '\n':
		if t.OnLine != nil {
			t.OnLine(strings.TrimRight(string(t.screen[t.row]), " "))
		}
		t.lineFeed()
		t.col = 0
	case '\b':
		t.col, t.wrapNext = max(t.col-1, 0), false
	case '\t':
		t.col = min((t.col/8+1)*8, t.cols-1)
	default:
		if r < 0x20 || r == 0x7f {
			return // other controls: nothing shown
		}
		if t.wrapNext {
			t.lineFeed()
			t.col, t.wrapNext = 0, false
		}
		t.screen[t.row][t.col] = r
		if t.col == t.cols-1 {
			t.wrapNext = true
		} else {
			t.col++
		}
	}
}

// lineFeed moves the cursor down a line, scrolling at the bottom.
func (t *Terminal) lineFeed() {
	t.wrapNext = false
	if t.row < t.rows-1 {
		t.row++
		return
	}
	t.history = append(t.history, strings.TrimRight(string(t.screen[0]), " "))
	copy(t.screen, t.screen[1:])
	t.screen[t.rows-1] = blank(t.cols)
}

// csi carries out the CSI sequence ending in final with its parameters.
func (t *Terminal) csi(final rune, params string) {
	n := 0
	for _, c := range params {
		if c < '0' || c > '9' {
			return // a private mode (CSI ?25l) or several parameters: none is a bar's
		}
		n = n*10 + int(c-'0')
	}
	move := max(n, 1)
	switch final {
	case 'A':
		t.row = max(t.row-move, 0)
	case 'B':
		t.row = min(t.row+move, t.rows-1)
	case 'C':
		t.col = min(t.col+move, t.cols-1)
	case 'D':
		t.col = max(t.col-move, 0)
	case 'J':
		switch n {
		case 0:
			if t.row == 0 && t.col == 0 {
				t.scrollOnClear()
			}
			t.eraseLine(t.col, t.cols)
			for r := t.row + 1; r < t.rows; r++ {
				t.screen[r] = blank(t.cols)
			}
		case 2:
			t.scrollOnClear()
		}
	case 'K':
		switch n {
		case 0:
			t.eraseLine(t.col, t.cols)
		case 1:
			t.eraseLine(0, t.col+1)
		case 2:
			t.eraseLine(0, t.cols)
		}
	default:
		return // other sequences (modes, colours): no cursor move
	}
	t.wrapNext = false
}

func (t *Terminal) eraseLine(from, to int) {
	for c := from; c < to; c++ {
		t.screen[t.row][c] = ' '
	}
}

// scrollOnClear scrolls the screen's lines, up to its last one not blank,
// into the history and blanks the screen.
func (t *Terminal) scrollOnClear() {
	last := -1
	for r := range t.screen {
		if strings.TrimSpace(string(t.screen[r])) != "" {
			last = r
		}
	}
	for r := 0; r <= last; r++ {
		t.history = append(t.history, strings.TrimRight(string(t.screen[r]), " "))
	}
	for r := range t.screen {
		t.screen[r] = blank(t.cols)
	}
}

// Lines are the history's lines then the screen's, trailing blanks of each
// line trimmed, up to the last line that is not blank: what a user can
// see and scroll back to.
func (t *Terminal) Lines() []string {
	lines := append([]string(nil), t.history...)
	for _, r := range t.screen {
		lines = append(lines, strings.TrimRight(string(r), " "))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Screen is the screen's lines, trailing blanks trimmed.
func (t *Terminal) Screen() []string {
	var lines []string
	for _, r := range t.screen {
		lines = append(lines, strings.TrimRight(string(r), " "))
	}
	return lines
}

// History is the lines scrolled off the screen.
func (t *Terminal) History() []string { return append([]string(nil), t.history...) }
