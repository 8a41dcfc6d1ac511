// Package interrupt turns SIGINT and SIGTERM into the cancellation of a
// run's context, and a second signal into an immediate exit: the first
// asks bench to stop and write what it has (marked incomplete), the
// second to stop now, without results. It also names the exit codes of
// a run a signal ended, as shells report them (128 plus the signal's
// number).
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/regretbench/regretbench/host/exitcode"
)

// Exit codes of a process ended by a signal: 128 plus its number
// (package exitcode's).
const (
	ExitInterrupted = exitcode.Interrupted // SIGINT
	ExitTerminated  = exitcode.Terminated  // SIGTERM
)

// Cause is the cancellation cause of a context ended by a signal.
type Cause struct{ Signal os.Signal }

func (c Cause) Error() string { return "received " + c.Signal.String() }

// Code is the exit code of a run the signal ended: ExitTerminated for
// SIGTERM, ExitInterrupted otherwise.
func (c Cause) Code() int {
	if c.Signal == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

// Repeat is how soon after the first signal another one is taken for the
// same event delivered twice, not for a second request: coreutils
// timeout, for one, signals its child and then the child's whole process
// group, and a scheduler may do likewise.
const Repeat = time.Second

// Context returns a context cancelled on SIGINT or SIGTERM, with the
// signal as its Cause, and a function that stops listening. A second
// signal, at least Repeat after the first, means "stop now": cleanup
// runs (it kills the plugins) and the process exits at once with the
// signal's Code.
func Context(parent context.Context, cleanup func()) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	quit := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		var first time.Time
		select {
		case s := <-ch:
			first = time.Now()
			cancel(Cause{s})
		case <-ctx.Done():
			return
		}
		for {
			var s os.Signal
			select {
			case s = <-ch:
			case <-quit:
				return
			}
			if time.Since(first) < Repeat {
				continue // the first signal again
			}
			cleanup()
			os.Exit(Cause{s}.Code())
		}
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { signal.Stop(ch); close(quit); cancel(nil) }) }
}

// Of returns the signal that ended ctx; ok is false when none did.
func Of(ctx context.Context) (c Cause, ok bool) {
	ok = errors.As(context.Cause(ctx), &c)
	return c, ok
}
