package exitcode_test

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/internal/interrupt"
)

// TestWithOf: a code travels with its error through wrapping; nil stays
// nil; an error without one has none.
func TestWithOf(t *testing.T) {
	if exitcode.With(exitcode.Input, nil) != nil {
		t.Error("With(code, nil) is not nil")
	}
	base := errors.New("bad flag")
	err := fmt.Errorf("run: %w", exitcode.With(exitcode.Input, base))
	if code, ok := exitcode.Of(err); !ok || code != exitcode.Input || !errors.Is(err, base) || err.Error() != "run: bad flag" {
		t.Errorf("Of(%v) = %d, %v; want %d and the error unchanged", err, code, ok, exitcode.Input)
	}
	if _, ok := exitcode.Of(base); ok {
		t.Error("an error without a code has one")
	}
}

// TestOneTable: the codes gate decides and a signal ends a run with are
// the table's: one table, every package using it.
func TestOneTable(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"gate.Pass", int(gate.Pass), exitcode.OK},
		{"gate.Regression", int(gate.Regression), exitcode.Regression},
		{"gate.Failure", int(gate.Failure), exitcode.Policy},
		{"gate.InconclusiveCode", int(gate.InconclusiveCode), exitcode.Inconclusive},
		{"SIGINT", interrupt.Cause{Signal: os.Interrupt}.Code(), exitcode.Interrupted},
		{"SIGTERM", interrupt.Cause{Signal: syscall.SIGTERM}.Code(), exitcode.Terminated},
		{"128+SIGINT", 128 + int(syscall.SIGINT), exitcode.Interrupted},
		{"128+SIGTERM", 128 + int(syscall.SIGTERM), exitcode.Terminated},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
