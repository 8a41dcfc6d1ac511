// Package progress shows one progress bar per running policy on a
// terminal: the policy's label (escaped by termsafe), rounds done out of
// the horizon, a bar, the percentage and an estimate of the time left.
//
// It shows nothing when its writer is not a terminal (a pipe, a file, CI
// logs) or when disabled (bench --quiet), so redirected stderr stays clean.
package progress

import (
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// Progress is the set of bars of one run. Its methods are safe for
// concurrent use; a nil or disabled Progress does nothing.
type Progress struct {
	p *mpb.Progress // nil when disabled

	mu       sync.Mutex
	bars     map[string]*bar
	sessions int
}

// bar is one policy's bar. Its count runs over all of the policy's
// sessions: done is the rounds of finished sessions, last the round of the
// current one.
type bar struct {
	b       *mpb.Bar
	horizon int
	done    int64
	last    int
	total   int64
}

// New returns a Progress drawing on w when enabled is true and w is a
// terminal (an *os.File on a TTY); otherwise a Progress that writes
// nothing.
func New(w io.Writer, enabled bool) *Progress {
	if !enabled || !IsTerminal(w) {
		return &Progress{}
	}
	return newBars(w)
}

// newBars draws on w whatever it is (tests force a non-terminal).
func newBars(w io.Writer, opts ...mpb.ContainerOption) *Progress {
	opts = append([]mpb.ContainerOption{mpb.WithOutput(w), mpb.WithWidth(32)}, opts...)
	return &Progress{p: mpb.New(opts...), bars: map[string]*bar{}}
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// SetSessions tells how many sessions (batches of replications) each
// policy plays, so a bar's total is sessions x horizon from the start.
// Without it a bar's total grows by one horizon whenever a new session
// starts, and the time estimate covers the sessions seen so far.
func (pr *Progress) SetSessions(n int) {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	pr.sessions = max(n, 1)
	pr.mu.Unlock()
}

// Func returns the callback for engine.Options.Progress, or nil when the
// Progress draws nothing (the engine then skips the calls).
func (pr *Progress) Func() func(label string, round, horizon int) {
	if pr == nil || pr.p == nil {
		return nil
	}
	return pr.update
}

// update records that the policy label has played round of horizon in its
// current session. A round lower than the last one seen starts a new
// session.
func (pr *Progress) update(label string, round, horizon int) {
	if horizon <= 0 {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	b, ok := pr.bars[label]
	if !ok {
		total := int64(horizon) * int64(max(pr.sessions, 1))
		b = &bar{horizon: horizon, total: total}
		// Total 0 at construction: the bar never completes by itself, as
		// the end of one session is not the end of the policy; Wait
		// completes it.
		b.b = pr.p.AddBar(0,
			mpb.PrependDecorators(
				decor.Name(termsafe.String(label), decor.WCSyncSpaceR),
				decor.CountersNoUnit("%d/%d", decor.WCSyncSpace),
			),
			mpb.AppendDecorators(
				decor.Percentage(decor.WCSyncSpace),
				decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WCSyncSpace), " done"),
			),
		)
		b.b.SetTotal(total, false)
		pr.bars[label] = b
	}
	if round < b.last { // a new session of this policy
		b.done += int64(b.horizon)
		if b.done+int64(horizon) > b.total {
			b.total = b.done + int64(horizon)
			b.b.SetTotal(b.total, false)
		}
	}
	b.last = round
	b.b.SetCurrent(b.done + int64(round))
}

// Wait completes every bar that reached its total (a policy that failed
// or was interrupted is left where it stopped) and waits until the bars are
// drawn for the last time. Call it once the run is over.
func (pr *Progress) Wait() {
	if pr == nil || pr.p == nil {
		return
	}
	pr.mu.Lock()
	for _, b := range pr.bars {
		if b.b.Current() >= b.total {
			b.b.SetTotal(-1, true)
		} else {
			b.b.Abort(false)
		}
	}
	pr.mu.Unlock()
	pr.p.Wait()
}
