package progress

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"

	"github.com/regretbench/regretbench/internal/vt"
)

// play drives a Progress as the engine does: several policies from their
// own goroutines, each of 2 x 100 replication-rounds, reporting every 10.
func play(pr *Progress) {
	f := pr.Func()
	var wg sync.WaitGroup
	for _, label := range []string{"TS", "KL-UCB", "ReMax"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if f == nil {
				return
			}
			for done := int64(0); done <= 200; done += 10 {
				f(label, done, 200)
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
			pr.Jobs("jobs", 3)
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

// clock is a fake clock that tests move.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// term is an emulated terminal that Progress draws on, one draw at a time:
// draw asks mpb for a draw and waits until it is on the terminal.
type term struct {
	t       *testing.T
	mu      sync.Mutex
	vt      *vt.Terminal
	wrote   chan struct{}
	refresh chan any
	pr      *Progress
}

// newTerm returns a Progress drawing on an emulated terminal of cols x
// rows, with the clock c, drawing only when asked.
func newTerm(t *testing.T, cols, rows int, c *clock) *term {
	tm := &term{t: t, vt: vt.New(cols, rows), wrote: make(chan struct{}, 1), refresh: make(chan any)}
	s := &screen{out: tm, cols: cols, rows: rows}
	tm.pr = newBars(s, c.now, mpb.WithManualRefresh(tm.refresh))
	return tm
}

func (tm *term) Write(p []byte) (int, error) {
	tm.mu.Lock()
	n, err := tm.vt.Write(p)
	tm.mu.Unlock()
	select {
	case tm.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// draw has the bars drawn and returns the terminal's lines, history and
// screen.
func (tm *term) draw() []string {
	tm.t.Helper()
	select {
	case <-tm.wrote:
	default:
	}
	tm.refresh <- time.Time{}
	select {
	case <-tm.wrote:
	case <-time.After(time.Minute):
		tm.t.Fatal("no draw within a minute")
	}
	return tm.lines()
}

func (tm *term) lines() []string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.vt.Lines()
}

// barLine is a bar as drawn: label, done/total [bar] percentage, and the
// time left, "done" or "stopped".
var barLine = regexp.MustCompile(`^(\S+)\s+(\d+)/(\d+) \[[=>-]*\]\s+(\d+) %\s*(\S*)$`)

type drawn struct {
	label       string
	done, total int64
	left        string
}

func parseBar(t *testing.T, line string) drawn {
	t.Helper()
	m := barLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("not a bar: %q", line)
	}
	done, _ := strconv.ParseInt(m[2], 10, 64)
	total, _ := strconv.ParseInt(m[3], 10, 64)
	return drawn{m[1], done, total, m[5]}
}

// TestDraws: three policies, started in the reverse of the order asked
// for their bars, report out of order from goroutines, and a later total
// differs from the first (as the old per-session calls made it grow). At
// every draw the bars are in the order asked, each shows the total of its
// first report, a count that never goes back, and a time left within 25%
// of the time actually left (on the fake clock) once 20% is done; the
// terminal holds the bars' lines and nothing else, draw after draw, in its
// history too.
func TestDraws(t *testing.T) {
	c := newClock()
	tm := newTerm(t, 100, 24, c)
	f := tm.pr.Func()
	labels := []string{"TS", "KL-UCB", "ReMax"}
	const total = 6000
	// Policy i plays (i+1) x 20 replication-rounds a second, after a
	// launch of 2 s: it ends at 2 s + total / rate.
	rate := func(i int) int64 { return int64(i+1) * 20 }
	end := func(i int) time.Duration { return 2*time.Second + time.Duration(total/rate(i))*time.Second }
	tm.pr.Order(labels...)
	for _, l := range slices.Backward(labels) { // the last starts first
		f(l, 0, total)
	}
	last := map[string]int64{}
	for s := 1; s <= 302; s++ {
		c.advance(time.Second)
		now := time.Duration(s) * time.Second
		var wg sync.WaitGroup
		for i, l := range labels {
			done := min(max(int64(now-2*time.Second)/int64(time.Second)*rate(i), 0), total)
			wg.Add(2)
			go func() { defer wg.Done(); f(l, done, total+done) }()    // a later total, ignored
			go func() { defer wg.Done(); f(l, done-rate(i), total) }() // a late report
		}
		wg.Wait()
		lines := tm.draw()
		if len(lines) != len(labels) {
			t.Fatalf("second %d: the terminal holds %d lines, want the %d bars:\n%s", s, len(lines), len(labels), strings.Join(lines, "\n"))
		}
		for i, line := range lines {
			d := parseBar(t, line)
			if d.label != labels[i] {
				t.Fatalf("second %d: line %d is %q's bar, want %q's", s, i, d.label, labels[i])
			}
			if d.total != total {
				t.Fatalf("second %d: %s: total %d, want %d from the first draw to the last", s, d.label, d.total, total)
			}
			if d.done < last[d.label] {
				t.Fatalf("second %d: %s: done went back from %d to %d", s, d.label, last[d.label], d.done)
			}
			last[d.label] = d.done
			if d.done == total {
				if d.left != "done" {
					t.Errorf("second %d: %s: complete, shows %q", s, d.label, d.left)
				}
				continue
			}
			if 5*d.done < total {
				continue
			}
			left, err := time.ParseDuration(d.left)
			if err != nil {
				t.Fatalf("second %d: %s: time left %q: %v", s, d.label, d.left, err)
			}
			actual := end(i) - now
			if diff := left - actual; diff > actual/4+time.Second/2 || -diff > actual/4+time.Second/2 {
				t.Errorf("second %d: %s at %d%%: time left %v, actually %v", s, d.label, 100*d.done/total, left, actual)
			}
		}
	}
	tm.pr.Wait()
	for _, l := range labels {
		if last[l] != total {
			t.Errorf("%s ended at %d, want %d", l, last[l], total)
		}
	}
}

// TestScreen: however the terminal is sized, the bars are redrawn in
// place: a terminal too narrow for a line (it would wrap), too short for
// every bar (the draw would scroll the screen), or whose size is unknown
// (a pseudo-terminal nobody sized) keeps no more lines than a draw has, on
// screen and in its history, after many draws; and on one that is large
// enough the bars are whole, the draw starting at the top left corner of
// the screen as on a fresh tmux pane.
func TestScreen(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cols, rows int // the terminal's size
		size       int // what it tells: 0 for unknown (0 x 0), else its size
		bars       int
		label      string
		whole      bool // every bar fits
		cut        bool // every line is too long
	}{
		{"large enough", 100, 24, 1, 3, "KL-UCB", true, false},
		{"narrow", 40, 24, 1, 3, "remaxgrad_robust_failure_mode:ReMaxGrad-robust-m2", false, true},
		{"short", 100, 4, 1, 6, "KL-UCB", false, false},
		{"size unknown", 80, 24, 0, 3, "KL-UCB", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			cols := tc.cols
			tm := &term{t: t, vt: vt.New(cols, tc.rows), wrote: make(chan struct{}, 1), refresh: make(chan any)}
			s := &screen{out: tm}
			if tc.size != 0 {
				s.cols, s.rows = cols, tc.rows
			}
			tm.pr = newBars(s, c.now, mpb.WithManualRefresh(tm.refresh))
			f := tm.pr.Func()
			for step := int64(0); step <= 100; step++ {
				for b := range tc.bars {
					f(fmt.Sprintf("%s%d", tc.label, b), step*10, 1000)
				}
				c.advance(time.Second)
				lines := tm.draw()
				if max := min(tc.bars, tc.rows-1); len(lines) > max {
					t.Fatalf("draw %d: the terminal holds %d lines, want at most %d:\n%s", step, len(lines), max, strings.Join(lines, "\n"))
				}
				for _, l := range lines {
					if n := utf8.RuneCountInString(l); n >= cols {
						t.Fatalf("draw %d: a line of %d columns on %d: %q", step, n, cols, l)
					}
					// A line cut short says so, and its mark is not lost to
					// an erasure from the last column.
					if tc.cut && !strings.HasSuffix(l, "…") {
						t.Fatalf("draw %d: a line too long for the terminal shows no mark where it was cut: %q", step, l)
					}
				}
				if tc.whole {
					if len(lines) != tc.bars {
						t.Fatalf("draw %d: %d lines, want %d", step, len(lines), tc.bars)
					}
					for _, l := range lines {
						parseBar(t, l)
					}
				}
			}
			tm.pr.Wait()
		})
	}
}

// TestJobs: with Jobs (bench paper), a line counts the bars finished out
// of n and a bar leaves the screen once finished, so that many more jobs
// than the screen has rows run without a line left behind; a job that
// failed stays, stopped.
func TestJobs(t *testing.T) {
	c := newClock()
	tm := newTerm(t, 100, 8, c)
	const n = 30
	tm.pr.Jobs("jobs", n)
	f := tm.pr.Func()
	for j := 0; j < n; j += 2 { // two at a time
		for done := int64(0); done <= 500; done += 50 {
			for k := j; k < j+2; k++ {
				if k == 7 && done > 200 {
					continue // job 7 fails at 40%
				}
				f(fmt.Sprintf("scenario: job%d", k), done, 500)
			}
			c.advance(time.Second)
			lines := tm.draw()
			if len(lines) > 4 {
				t.Fatalf("job %d: the terminal holds %d lines, want the jobs line, two bars and a failed one:\n%s", j, len(lines), strings.Join(lines, "\n"))
			}
		}
	}
	tm.pr.Wait()
	lines := tm.lines()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "jobs") || !strings.Contains(lines[0], "29/30") ||
		!strings.Contains(lines[1], "job7") || !strings.HasSuffix(lines[1], "stopped") {
		t.Errorf("at the end the terminal holds\n%s\nwant the jobs line at 29/30 and job7's, stopped", strings.Join(lines, "\n"))
	}
}

// TestEstimate: the time left, on a fake clock, is within 25% of the
// time actually left once 20% of the work is done, for a policy whose
// plugin takes long to start, one whose rate jitters from report to
// report, and one that speeds up when another finishes (from the time
// the new rate has held for half as long as the old one had).
func TestEstimate(t *testing.T) {
	type phase struct {
		upto float64 // fraction of the work done at the end of the phase
		rate float64 // fraction of the work a second
	}
	for _, tc := range []struct {
		name   string
		launch time.Duration // before the first round
		phases []phase
		jitter float64 // the rate of each report's interval varies by this fraction
		until  float64 // check up to this fraction done
		from   func(start, change, now time.Duration) bool
	}{
		{name: "steady", phases: []phase{{1, 0.01}}, until: 1},
		{name: "slow launch", launch: 30 * time.Second, phases: []phase{{1, 0.01}}, until: 1},
		{name: "jitter", launch: 2 * time.Second, phases: []phase{{1, 0.01}}, jitter: 0.4, until: 0.9},
		{name: "speeds up", phases: []phase{{0.3, 0.01}, {1, 0.02}}, until: 1,
			from: func(start, change, now time.Duration) bool { return now-change >= (change-start)/2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const total = 1_000_000
			const every = total / 200 // two sessions, each reporting every 1%
			rnd := rand.New(rand.NewPCG(1, 2))
			// When each report comes.
			var at []time.Duration
			now, change := tc.launch, time.Duration(0)
			for done := every; done <= total; done += every {
				f := float64(done) / total
				p := tc.phases[0]
				for _, q := range tc.phases {
					if f <= q.upto+1e-9 {
						p = q
						break
					}
				}
				if p != tc.phases[0] && change == 0 {
					change = now
				}
				r := p.rate * (1 + tc.jitter*(2*rnd.Float64()-1))
				now += time.Duration(float64(every) / total / r * float64(time.Second))
				at = append(at, now)
			}
			end := at[len(at)-1]
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var e estimate
			e.observe(start, 0)
			checked := 0
			for k, ta := range at {
				done := int64(k+1) * every
				e.observe(start.Add(ta), done)
				// Draws between this report and the next, as mpb's come.
				next := end
				if k+1 < len(at) {
					next = at[k+1]
				}
				for tn := ta; tn < next; tn += 150 * time.Millisecond {
					f := float64(done) / total
					if f < 0.2 || f >= tc.until || (tc.from != nil && !tc.from(tc.launch, change, tn)) {
						continue
					}
					left, ok := e.left(start.Add(tn), total)
					if !ok {
						t.Fatalf("at %.0f%%: no estimate", 100*f)
					}
					actual := end - tn
					if diff := left - actual; diff > actual/4 || -diff > actual/4 {
						t.Errorf("at %.1f%% (%v): time left %v, actually %v", 100*f, tn, left, actual)
					}
					checked++
				}
			}
			if checked < 100 {
				t.Errorf("only %d draws checked", checked)
			}
		})
	}
}

// TestHostileLabel: a label holding a terminal retitle, a screen clear, a
// bidi override and a C1 control is drawn escaped (the bars' own cursor
// moves and erasures are the only escape sequences left); before, a
// scenario file's label could retitle or clear the terminal of whoever ran
// it.
func TestHostileLabel(t *testing.T) {
	const hostile = "\x1b]0;pwned\x07\x1b[2J\u202e\u009b"
	var b bytes.Buffer
	pr := newBars(&screen{out: &b, cols: 100, rows: 24}, time.Now, mpb.WithAutoRefresh())
	f := pr.Func()
	for done := int64(0); done <= 100; done += 50 {
		f("TS"+hostile, done, 100)
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
