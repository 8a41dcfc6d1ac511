package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vbauerster/mpb/v8"
)

// play drives a Progress as the engine does: several policies from their
// own goroutines, each in two sessions of 100 rounds, reporting every 10.
func play(pr *Progress) {
	pr.SetSessions(2)
	f := pr.Func()
	var wg sync.WaitGroup
	for _, label := range []string{"TS", "KL-UCB", "ReMax"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				for r := 10; r <= 100; r += 10 {
					if f != nil {
						f(label, r, 100)
					}
				}
			}
		}()
	}
	wg.Wait()
	pr.Wait()
}

// TestSilent: nothing is written when the writer is not a terminal (a
// bytes.Buffer, as stderr redirected to a file or pipe) or when disabled
// (--quiet), and the engine gets no callback to call.
func TestSilent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		enabled bool
	}{
		{"not a terminal", true},
		{"quiet", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			pr := New(&b, tc.enabled)
			if pr.Func() != nil {
				t.Error("Func() is not nil: the engine would call it")
			}
			play(pr)
			if b.Len() != 0 {
				t.Errorf("wrote %q", b.String())
			}
		})
	}
	// A regular file is not a terminal either.
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file counts as a terminal")
	}
	play(New(f, true))
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("wrote %d bytes to a regular file", st.Size())
	}
}

// TestBars: the same calls on a Progress forced to draw (as on a
// terminal) do write a bar per policy with its rounds over both sessions,
// so TestSilent's empty output is not a broken Progress.
func TestBars(t *testing.T) {
	var b bytes.Buffer
	play(newBars(&b, mpb.ForceTTY(), mpb.WithAutoRefresh()))
	out := b.String()
	for _, want := range []string{"TS", "KL-UCB", "ReMax", "200/200", "100 %"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestGrowingTotal: without SetSessions, a second session extends the
// bar's total instead of completing it after the first.
func TestGrowingTotal(t *testing.T) {
	var b bytes.Buffer
	pr := newBars(&b, mpb.ForceTTY(), mpb.WithAutoRefresh())
	f := pr.Func()
	for range 3 {
		for r := 50; r <= 100; r += 50 {
			f("TS", r, 100)
		}
	}
	pr.Wait()
	if !strings.Contains(b.String(), "300/300") {
		t.Errorf("three sessions of 100 rounds did not add up to 300/300:\n%s", b.String())
	}
}

// TestHostileLabel: a label holding a terminal retitle, a screen clear, a
// bidi override and a C1 control is drawn escaped (the bars' own cursor
// moves are the only escape sequences left); before, a scenario file's
// label could retitle or clear the terminal of whoever ran it.
func TestHostileLabel(t *testing.T) {
	const hostile = "\x1b]0;pwned\x07\x1b[2J\u202e\u009b"
	var b bytes.Buffer
	pr := newBars(&b, mpb.ForceTTY(), mpb.WithAutoRefresh())
	f := pr.Func()
	for r := 50; r <= 100; r += 50 {
		f("TS"+hostile, r, 100)
	}
	pr.Wait()
	out := b.String()
	for _, raw := range []string{"\x1b]", "\x07", "\x1b[2J", "\u202e", "\u009b"} {
		if strings.Contains(out, raw) {
			t.Errorf("output holds %q raw:\n%q", raw, out)
		}
	}
	if want := `TS\x1b]0;pwned\a\x1b[2J`; !strings.Contains(out, want) { // the rest may be cut to fit
		t.Errorf("output lacks the escaped label %s:\n%q", want, out)
	}
}
