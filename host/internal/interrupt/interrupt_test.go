package interrupt

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestCause: a signal's cause names it and gives the shell's exit code.
func TestCause(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		msg  string
		code int
	}{
		{os.Interrupt, "received interrupt", ExitInterrupted},
		{syscall.SIGTERM, "received terminated", ExitTerminated},
	} {
		c := Cause{tc.sig}
		if got := c.Error(); got != tc.msg {
			t.Errorf("Cause{%v}.Error() = %q, want %q", tc.sig, got, tc.msg)
		}
		if got := c.Code(); got != tc.code || got != 128+int(tc.sig.(syscall.Signal)) {
			t.Errorf("Cause{%v}.Code() = %d, want %d (128 + the signal's number)", tc.sig, got, tc.code)
		}
	}
}

// TestContext: a signal the process receives cancels the context with
// the signal as its cause, which Of returns; stopping cancels it with no
// signal, and a context never signalled has none.
func TestContext(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, stop := Context(context.Background(), func() { t.Error("cleanup ran for one signal") })
			defer stop()
			if _, ok := Of(ctx); ok {
				t.Fatal("Of reports a signal before any")
			}
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute):
				t.Fatal("the context was not cancelled by the signal")
			}
			c, ok := Of(ctx)
			if !ok || c.Signal != sig {
				t.Fatalf("Of = %v, %v; want %v", c, ok, sig)
			}
			var cause Cause
			if !errors.As(context.Cause(ctx), &cause) {
				t.Errorf("the cause %v is not a Cause", context.Cause(ctx))
			}
		})
	}
	ctx, stop := Context(context.Background(), func() {})
	stop()
	stop() // twice is harmless
	if ctx.Err() == nil {
		t.Error("stop did not cancel the context")
	}
	if c, ok := Of(ctx); ok {
		t.Errorf("Of = %v after stop, want no signal", c)
	}
}
