//go:build unix

package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/regretbench/regretbench/internal/vt"
)

// ttyDraw is one line of a progress bar as bench drew it on the terminal,
// with the time it arrived.
type ttyDraw struct {
	at          time.Time
	label       string
	done, total int64
	left        string // the time left, "done", "stopped" or ""
}

// ttyBar is a bar line: label, done/total [bar] percentage, time left.
var ttyBar = regexp.MustCompile(`^(.+?)\s+(\d+)/(\d+) \[[=>-]*\]\s+(\d+) %\s*(\S*)$`)

// runOnTerminal runs bench with args, its stderr (and stdin) a
// pseudo-terminal of cols x rows and its stdout a buffer, and returns every
// line drawn on the terminal (from a tiny terminal emulator: a line is
// drawn when a newline leaves it), what the terminal is left with,
// history included, and bench's exit code.
func runOnTerminal(t *testing.T, cols, rows int, args ...string) (draws []ttyDraw, other []string, left []string, code int) {
	t.Helper()
	args = append([]string{"--plugin-dir", filepath.Join(binDir, "plugins")}, args...)
	cmd := exec.Command(filepath.Join(binDir, "bench"), args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatalf("starting bench on a pseudo-terminal: %v", err)
	}
	defer tty.Close()
	t.Cleanup(func() { cmd.Process.Kill() })

	term := vt.New(cols, rows)
	var mu sync.Mutex
	var now time.Time
	term.OnLine = func(line string) {
		if line == "" {
			return
		}
		m := ttyBar.FindStringSubmatch(line)
		if m == nil {
			other = append(other, line)
			return
		}
		done, _ := strconv.ParseInt(m[2], 10, 64)
		total, _ := strconv.ParseInt(m[3], 10, 64)
		draws = append(draws, ttyDraw{now, m[1], done, total, m[5]})
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 1<<16)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			now = time.Now()
			term.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once bench and whatever it started closed the terminal
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(5 * time.Minute):
		t.Fatal("bench did not finish within 5 minutes")
	}
	select {
	case <-read:
	case <-time.After(time.Minute):
		t.Fatal("the terminal was still open a minute after bench exited")
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return draws, other, term.Lines(), code
}

// TestProgressOnTerminal runs the bench binary on a pseudo-terminal (a
// fresh one: its bars start at the top left corner of the screen, as in a
// new tmux pane) and reads what it draws with a terminal emulator. Each
// policy's bar shows the same total, its replications x horizon, from its
// first draw to its last, and a count that never goes back and ends at
// the total; the terminal is left with one line per policy, on screen and
// in its history, after a short run as after a long one (redraws are in
// place); and on the long run the time left it shows from 20% on is near
// the time that was actually left. The ETA bound is loose (the median of
// its ratio to the time left within a factor of three), as the machine may
// be loaded; host/progress's TestEstimate holds it to 25% on a fake clock.
// The old bars grew their totals (40,000 -> 1,260,000), sat at 99% with
// an ETA of 0 s, and left a line per draw in tmux's history.
func TestProgressOnTerminal(t *testing.T) {
	skipShort(t, "the progress bars on a pseudo-terminal")
	for _, tc := range []struct {
		name string
		runs int
		eta  bool // check the time left
	}{
		{"short run", 64, false},
		{"long run", 3000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.eta {
				skipShort(t, "a run of several seconds on a pseudo-terminal, for its ETA")
			}
			const horizon = 20000
			draws, other, left, code := runOnTerminal(t, 100, 24, "-s", "ten_arm", "--policy", "TS", "--policy", "KL-UCB",
				"--runs", strconv.Itoa(tc.runs), "--horizon", strconv.Itoa(horizon))
			if code != 0 {
				t.Fatalf("bench exited %d; the terminal shows:\n%s", code, strings.Join(left, "\n"))
			}
			if len(other) > 0 {
				t.Errorf("lines on the terminal that are no bar: %q", other)
			}
			total := int64(tc.runs) * horizon
			byLabel := map[string][]ttyDraw{}
			for _, d := range draws {
				byLabel[d.label] = append(byLabel[d.label], d)
			}
			for _, label := range []string{"TS", "KL-UCB"} {
				ds := byLabel[label]
				if len(ds) < 2 {
					t.Fatalf("%s: %d draws of its bar", label, len(ds))
				}
				for i, d := range ds {
					if d.total != total {
						t.Fatalf("%s: draw %d shows a total of %d, want %d (replications x horizon) in every draw", label, i, d.total, total)
					}
					if i > 0 && d.done < ds[i-1].done {
						t.Fatalf("%s: draw %d: the count went back from %d to %d", label, i, ds[i-1].done, d.done)
					}
				}
				if last := ds[len(ds)-1]; last.done != total || last.left != "done" {
					t.Errorf("%s: last draw %d/%d %q, want the total and done", label, last.done, last.total, last.left)
				}
				if tc.eta {
					checkETA(t, label, ds)
				}
			}
			if len(left) != 2 || !strings.HasPrefix(left[0], "TS ") || !strings.HasPrefix(left[1], "KL-UCB ") {
				t.Errorf("after %d draws the terminal holds %d lines, want the 2 bars:\n%s", len(draws), len(left), strings.Join(left, "\n"))
			}
		})
	}
}

// checkETA checks loosely that the time left shown from 20% done on is
// the time that was actually left: the median of their ratio is within a
// factor of three, over the draws with at least a second left. The times
// are those at which the test read the draws, which lag behind when the
// machine is loaded; the old bars showed 0 s with most of the run to go.
func checkETA(t *testing.T, label string, ds []ttyDraw) {
	t.Helper()
	end := ds[len(ds)-1].at
	for _, d := range ds {
		if d.done == d.total {
			end = d.at
			break
		}
	}
	var ratios []float64
	var table strings.Builder
	for _, d := range ds {
		actual := end.Sub(d.at)
		if 5*d.done < d.total || d.done == d.total || actual < time.Second {
			continue
		}
		shown, err := time.ParseDuration(d.left)
		if err != nil {
			t.Errorf("%s at %d/%d: time left %q: %v", label, d.done, d.total, d.left, err)
			continue
		}
		r := shown.Seconds() / actual.Seconds()
		ratios = append(ratios, r)
		fmt.Fprintf(&table, "  %5.1f%%  shown %-6v actually %-6v ratio %.2f\n", 100*float64(d.done)/float64(d.total), shown, actual.Round(100*time.Millisecond), r)
	}
	if len(ratios) < 5 {
		t.Fatalf("%s: only %d draws with a second or more left after 20%%; the run is too short to judge its ETA:\n%s", label, len(ratios), table.String())
	}
	sort.Float64s(ratios)
	if m := ratios[len(ratios)/2]; m < 1.0/3 || m > 3 {
		t.Errorf("%s: the time left shown is %.2f times the time actually left (median over %d draws):\n%s", label, m, len(ratios), table.String())
	} else {
		t.Logf("%s: median ratio of the time left shown to the time actually left %.2f over %d draws", label, m, len(ratios))
	}
}

// TestPaperProgressOnTerminal: bench paper, on a terminal of 12 rows for
// its 30 jobs, draws a line counting the jobs finished out of 30 and a bar
// per running job, each with a fixed total (replications x horizon) and a
// count that never goes back; a job's bar leaves once it is done, so the
// terminal is left with the jobs line alone, on screen and in its history.
func TestPaperProgressOnTerminal(t *testing.T) {
	skipShort(t, "bench paper over every scenario of the paper, on a pseudo-terminal")
	const runs, horizon = 4, 200
	draws, other, left, code := runOnTerminal(t, 100, 12, "paper", "--runs", strconv.Itoa(runs), "--horizon", strconv.Itoa(horizon),
		"--out", t.TempDir())
	if code != 0 {
		t.Fatalf("bench paper exited %d; the terminal shows:\n%s", code, strings.Join(left, "\n"))
	}
	if len(other) > 0 {
		t.Errorf("lines on the terminal that are no bar: %q", other)
	}
	byLabel := map[string][]ttyDraw{}
	for _, d := range draws {
		byLabel[d.label] = append(byLabel[d.label], d)
	}
	if len(byLabel) != 31 {
		t.Errorf("%d bars drawn, want the jobs line and 30 jobs", len(byLabel))
	}
	for label, ds := range byLabel {
		total := int64(runs * horizon)
		if label == "jobs" {
			total = 30
		}
		for i, d := range ds {
			if d.total != total {
				t.Fatalf("%s: draw %d shows a total of %d, want %d in every draw", label, i, d.total, total)
			}
			if i > 0 && d.done < ds[i-1].done {
				t.Fatalf("%s: draw %d: the count went back from %d to %d", label, i, ds[i-1].done, d.done)
			}
		}
		if last := ds[len(ds)-1]; last.done != total || last.left != "done" {
			t.Errorf("%s: last draw %d/%d %q, want the total and done", label, last.done, last.total, last.left)
		}
	}
	if len(left) != 1 || !strings.HasPrefix(left[0], "jobs ") {
		t.Errorf("after %d draws the terminal holds %d lines, want the jobs line:\n%s", len(draws), len(left), strings.Join(left, "\n"))
	}
}
