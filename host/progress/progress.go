// Package progress shows one progress bar per running policy on a
// terminal: the policy's label (escaped by termsafe), the work done out of
// its total, a bar, the percentage and an estimate of the time left.
//
// # Unit
//
// Work is counted in replication-rounds, one round of one replication: a
// policy run over R replications with horizon T has R x T of them
// (engine.Options.Progress). That total is known before the policy's first
// round, so a bar's total is the same from its first draw to its last, and
// its count only grows, however the replications are split into sessions
// and however many sessions run at once. A round of one replication costs
// about the same whatever the session, so the bar's percentage is a
// percentage of the policy's time as well.
//
// # Time left
//
// A policy's time left is its replication-rounds left at the rate it has
// kept over the latest half of the time since its first report of work
// done. Starting the plugin and opening its sessions come before that
// report, so they do not count as slow rounds; a policy that speeds up
// when another finishes and frees a core gets the new rate once it has
// held for a while. The estimate counts down between reports, grows while
// a policy stalls, is shown from the second report of work on, and is
// exact for a policy that plays at a steady rate.
//
// # Drawing
//
// Bars are redrawn in place (package mpb draws them; this package's console
// writer puts them on the terminal): each draw goes back up over the
// previous one and rewrites its lines, erasing the rest of each line and
// what is left below the last one. It never erases the screen from its top
// left corner, which tmux (scroll-on-clear) takes for a clear and scrolls
// into its history. Lines stay one column short of the terminal's width,
// so that none wraps, and a draw stays a line short of its height, so that
// none scrolls the screen; either would leave a line behind at each draw.
//
// It shows nothing when its writer is not a terminal (a pipe, a file, CI
// logs) or when disabled (bench --quiet), so redirected stderr stays clean.
package progress

import (
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// Progress is the set of bars of one run. Its methods are safe for
// concurrent use; a nil or disabled Progress does nothing.
type Progress struct {
	p   *mpb.Progress // nil when disabled
	now func() time.Time

	mu      sync.Mutex
	bars    map[string]*bar
	order   map[string]int // the bars' order on screen (Order)
	jobs    *mpb.Bar       // the line counting finished bars, nil without Jobs
	removes bool           // a finished bar leaves the screen (Jobs)
}

// bar is one policy's bar.
type bar struct {
	b     *mpb.Bar
	total int64
	now   func() time.Time

	// mu orders the updates of the bar: done only grows.
	mu   sync.Mutex
	done int64

	// emu guards est, which the ETA decorator reads from mpb's goroutine
	// while an update may wait on mpb holding mu.
	emu sync.Mutex
	est estimate
}

// New returns a Progress drawing on w when enabled is true and w is a
// terminal (an *os.File on a TTY); otherwise a Progress that writes
// nothing.
func New(w io.Writer, enabled bool) *Progress {
	if !enabled || !IsTerminal(w) {
		return &Progress{}
	}
	return newBars(newScreen(w), time.Now)
}

// newBars draws through s, with now for a clock (tests give a fake
// terminal and clock, and mpb options of their own).
func newBars(s *screen, now func() time.Time, opts ...mpb.ContainerOption) *Progress {
	opts = append([]mpb.ContainerOption{mpb.WithConsoleWriter(s), mpb.WithWidth(32)}, opts...)
	return &Progress{p: mpb.New(opts...), now: now, bars: map[string]*bar{}}
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

// Jobs makes the Progress count, on a first line, how many of n bars
// have finished, and take each bar off the screen once it has finished:
// for runs of more bars than a screen holds (bench paper's jobs), of which
// only the running ones are shown. Call it before the first update.
func (pr *Progress) Jobs(label string, n int) {
	if pr == nil || pr.p == nil || n <= 0 {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.removes = true
	pr.jobs = pr.p.AddBar(int64(n),
		mpb.PrependDecorators(
			decor.Name(label, decor.WCSyncSpaceR),
			decor.CountersNoUnit("%d/%d", decor.WCSyncSpace),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WCSyncSpace),
			decor.OnComplete(decor.Name("", decor.WCSyncSpace), "done"),
		),
	)
}

// Order puts the bars of labels on the screen in that order, whichever
// policy starts first; a bar of another label comes after them. Call it
// before the first update.
func (pr *Progress) Order(labels ...string) {
	if pr == nil || pr.p == nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.order = map[string]int{}
	for i, l := range labels {
		pr.order[l] = i
	}
}

// Func returns the callback for engine.Options.Progress, or nil when the
// Progress draws nothing (the engine then skips the calls).
func (pr *Progress) Func() func(label string, done, total int64) {
	if pr == nil || pr.p == nil {
		return nil
	}
	return pr.update
}

// update records that the policy label has played done of its total
// replication-rounds. Its first call makes the bar with that total; a
// later total is ignored, as is a done lower than one already shown.
func (pr *Progress) update(label string, done, total int64) {
	pr.mu.Lock()
	b, ok := pr.bars[label]
	if !ok {
		if total <= 0 {
			pr.mu.Unlock()
			return
		}
		b = pr.add(label, total)
		pr.bars[label] = b
	}
	pr.mu.Unlock()

	done = min(done, b.total)
	b.mu.Lock()
	defer b.mu.Unlock()
	if done < b.done || (ok && done == b.done) {
		return
	}
	b.done = done
	b.emu.Lock()
	b.est.observe(b.now(), done)
	b.emu.Unlock()
	b.b.SetCurrent(done)
	if done == b.total && pr.jobs != nil {
		pr.jobs.Increment()
	}
}

// add makes the bar of label, with its total fixed. pr.mu is held.
func (pr *Progress) add(label string, total int64) *bar {
	b := &bar{total: total, now: pr.now}
	opts := []mpb.BarOption{
		mpb.PrependDecorators(
			decor.Name(termsafe.String(label), decor.WCSyncSpaceR),
			decor.CountersNoUnit("%d/%d", decor.WCSyncSpace),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WCSyncSpace),
			decor.Any(b.left, decor.WCSyncSpace),
		),
	}
	if pr.removes {
		opts = append(opts, mpb.BarRemoveOnComplete())
	}
	if i, ok := pr.order[label]; ok {
		opts = append(opts, mpb.BarPriority(i))
	} else if pr.order != nil {
		opts = append(opts, mpb.BarPriority(len(pr.order)+len(pr.bars)))
	}
	b.b = pr.p.AddBar(total, opts...)
	return b
}

// left is the bar's last column: the time left, "done", or "stopped" for
// a policy that failed or was interrupted. It runs in mpb's goroutine.
func (b *bar) left(s decor.Statistics) string {
	switch {
	case s.Completed:
		return "done"
	case s.Aborted:
		return "stopped"
	}
	b.emu.Lock()
	d, ok := b.est.left(b.now(), b.total)
	b.emu.Unlock()
	if !ok {
		return ""
	}
	return d.Round(time.Second).String()
}

// Wait leaves every bar that did not finish (a policy that failed or was
// interrupted) where it stopped, and waits until the bars are drawn for
// the last time. Call it once the run is over.
func (pr *Progress) Wait() {
	if pr == nil || pr.p == nil {
		return
	}
	pr.mu.Lock()
	for _, b := range pr.bars {
		b.mu.Lock()
		if b.done < b.total {
			b.b.Abort(false)
		}
		b.mu.Unlock()
	}
	if pr.jobs != nil && !pr.jobs.Completed() {
		pr.jobs.Abort(false)
	}
	pr.mu.Unlock()
	pr.p.Wait()
}

// estimate is a bar's rate of work, for the time it has left.
type estimate struct {
	// samples are the reports of work done, oldest first: the first one
	// always, then at most maxSamples, thinned by halves.
	samples []sample
}

type sample struct {
	t    time.Time
	done int64
}

// maxSamples bounds the reports an estimate keeps.
const maxSamples = 256

// observe records a report of done at now.
func (e *estimate) observe(now time.Time, done int64) {
	if done <= 0 {
		return // the start of the policy: no work yet
	}
	if len(e.samples) == maxSamples {
		// Keep every other one, from the first.
		n := 1
		for i := 2; i < len(e.samples); i += 2 {
			e.samples[n] = e.samples[i]
			n++
		}
		e.samples = e.samples[:n]
	}
	e.samples = append(e.samples, sample{now, done})
}

// left is the time left at now to reach total. The rate is that of the
// latest half of the time since the first report: from the latest report
// at least that old to the latest report. Not all the time since the
// first report, so that the estimate follows a policy that speeds up when
// another one finishes and frees a core; its latest half, so that the
// estimate is steady. Between reports the estimate counts down; a policy
// that misses three reports in a row has stalled, and its rate then runs
// to now, so that its estimate grows. ok is false until a second report of
// work gives a rate.
func (e *estimate) left(now time.Time, total int64) (d time.Duration, ok bool) {
	n := len(e.samples)
	if n < 2 {
		return 0, false
	}
	first, prev, last := e.samples[0], e.samples[n-2], e.samples[n-1]
	cut := now.Add(-now.Sub(first.t) / 2)
	// The latest sample at or before cut, first when none is.
	i := sort.Search(n, func(i int) bool { return e.samples[i].t.After(cut) }) - 1
	base := e.samples[max(i, 0)]
	if last.done <= base.done {
		base = first
	}
	span, work := last.t.Sub(base.t), float64(last.done-base.done)
	if work <= 0 || span <= 0 {
		return 0, false
	}
	perUnit := float64(span) / work // time per replication-round
	since := now.Sub(last.t)
	gap := time.Duration(perUnit * float64(last.done-prev.done)) // between reports
	rest := float64(total - last.done)
	if since > 3*gap {
		return time.Duration(float64(now.Sub(base.t)) / work * rest), true
	}
	return max(time.Duration(perUnit*rest)-since, 0), true
}
