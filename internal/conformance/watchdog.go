package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/regretbench/regretbench/internal/client"
)

// call is a call to the plugin that the watchdog times: Open, a round's
// Step or Close.
type call struct {
	what  string
	round int // Step's
}

func (c call) String() string {
	if c.what == "Step" {
		return fmt.Sprintf("Step (round %d)", c.round)
	}
	return c.what
}

// watchdog ends a check's context when one call to the plugin takes
// longer than the step timeout, and remembers which. It costs a timer
// reset per call, so a long session pays nothing noticeable. The
// transports the kit uses stop waiting when the context ends; the kit then
// closes (for an executable, kills) the plugin.
type watchdog struct {
	limit  time.Duration
	cancel context.CancelFunc
	timer  *time.Timer

	mu    sync.Mutex
	busy  bool
	cur   call
	since time.Time
	fired *call
}

// newWatchdog returns the check's context, derived from ctx, and its
// watchdog. Stop it when the check ends.
func newWatchdog(ctx context.Context, limit time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancel(ctx)
	w := &watchdog{limit: limit, cancel: cancel}
	w.timer = time.AfterFunc(time.Hour, w.check)
	w.timer.Stop()
	return ctx, w
}

// begin starts timing c.
func (w *watchdog) begin(c call) {
	w.mu.Lock()
	w.busy, w.cur, w.since = true, c, time.Now()
	w.mu.Unlock()
	w.timer.Reset(w.limit)
}

// end stops timing the call begun last.
func (w *watchdog) end() {
	w.timer.Stop()
	w.mu.Lock()
	w.busy = false
	w.mu.Unlock()
}

// check runs when the timer fires: a timer that fires late, after its call
// ended or for an earlier call, does nothing.
func (w *watchdog) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.busy || w.fired != nil || time.Since(w.since) < w.limit {
		return
	}
	c := w.cur
	w.fired = &c
	w.cancel()
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel()
}

// timedOut returns the call the step timeout cut short, if any.
func (w *watchdog) timedOut() (call, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired == nil {
		return call{}, false
	}
	return *w.fired, true
}

// timeoutError replaces the error of a check cut short by a timeout
// (what: "step" or "start") with one naming the call and the timeout,
// keeping the plugin's path and last stderr lines when err carries them.
func timeoutError(err error, c call, what string, limit time.Duration) error {
	msg := fmt.Sprintf("did not answer within the %s timeout %v (stuck? if it is only slow, raise the timeout)", what, limit)
	if pe, ok := errors.AsType[*client.PluginError](err); ok {
		e := *pe
		e.Op, e.Err, e.Exited = c.String(), errors.New(msg), false
		return &e
	}
	return fmt.Errorf("the plugin %s", strings.Replace(msg, "did not answer", "did not answer "+c.String(), 1))
}
