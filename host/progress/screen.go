package progress

import (
	"bytes"
	"io"
	"strconv"

	"github.com/vbauerster/cupwriter"
)

// The terminal's size when it does not tell (a pseudo-terminal nobody
// sized reports 0 x 0, on which mpb would draw nothing).
const (
	defaultCols = 80
	defaultRows = 24
)

// screen is the mpb.ConsoleWriter the bars are drawn through. mpb writes a
// draw's lines, each ending in "\n", then calls Flush with their number;
// screen sends the draw to the terminal in one write, prefixed by the
// cursor's move back up over the previous draw, with each line's rest
// erased (CSI K) and what is below the last line erased (CSI J), from
// where the cursor then is: never the top left corner of the screen,
// unless a draw has no line. See the package doc.
type screen struct {
	buf  bytes.Buffer // the draw mpb is writing
	out  io.Writer
	tty  *cupwriter.Writer // the terminal's size, nil for a fixed one
	cols int               // the fixed size, when tty is nil
	rows int
	up   int // lines of the previous draw
}

// newScreen draws on w, a terminal.
func newScreen(w io.Writer) *screen {
	return &screen{out: w, tty: cupwriter.New(w, false)}
}

// Write adds p to the draw.
func (s *screen) Write(p []byte) (int, error) { return s.buf.Write(p) }

// ReadFrom adds what r holds to the draw.
func (s *screen) ReadFrom(r io.Reader) (int64, error) { return s.buf.ReadFrom(r) }

// IsTerminal is true: a screen is made only for a terminal.
func (s *screen) IsTerminal() bool { return true }

// GetTermSize is the room mpb may draw in: a column and a row less than
// the terminal's.
func (s *screen) GetTermSize() (width, height int, err error) {
	cols, rows := s.cols, s.rows
	if s.tty != nil {
		cols, rows, _ = s.tty.GetTermSize()
	}
	if cols <= 0 {
		cols = defaultCols
	}
	if rows <= 0 {
		rows = defaultRows
	}
	return max(cols-1, 1), max(rows-1, 1), nil
}

// Flush sends the draw to the terminal. The lines it goes back up over
// next time are those it wrote, counted by their "\n" (mpb's lines are the
// same number but for pop mode, which the bars do not use).
func (s *screen) Flush(int) error {
	draw := s.buf.Bytes()
	n := bytes.Count(draw, []byte("\n"))
	if n == 0 && s.up == 0 {
		s.buf.Reset()
		return nil
	}
	var b bytes.Buffer
	b.Grow(len(draw) + 4*n + 16)
	s.cursorUp(&b)
	b.WriteByte('\r')
	if n == 0 {
		// No line left (every bar taken off): blank the previous ones and
		// go back up, rather than erase the screen below the cursor, which
		// may be its top left corner.
		for range s.up {
			b.WriteString("\x1b[K\n")
		}
		s.cursorUp(&b)
	} else {
		b.Write(bytes.ReplaceAll(draw, []byte("\n"), []byte("\x1b[K\n")))
		b.WriteString("\x1b[J")
	}
	s.buf.Reset()
	s.up = n
	_, err := s.out.Write(b.Bytes())
	return err
}

// cursorUp writes the move back up over the previous draw.
func (s *screen) cursorUp(b *bytes.Buffer) {
	if s.up > 0 {
		b.WriteString("\x1b[")
		b.WriteString(strconv.Itoa(s.up))
		b.WriteByte('A')
	}
}
