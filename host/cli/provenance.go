package cli

import (
	"context"
	"os"
	"time"

	"github.com/regretbench/regretbench/host/results"
)

// commandKey is the context key of the command line bench was run with.
type commandKey struct{}

// withCommand returns ctx carrying bench's command line (args, without
// the program name), for the results files a run writes.
func withCommand(ctx context.Context, args []string) context.Context {
	return context.WithValue(ctx, commandKey{}, append([]string{"bench"}, args...))
}

// stamp records in f how it was produced: bench's command line (as ctx
// carries it), the host name and the date, beside the bench version the
// engine recorded. A report shows them so that a reader can reproduce the
// run. Stamped only when the results are written to a file: the tables a
// run prints do not show them.
func stamp(ctx context.Context, f *results.File) {
	if f.Bench == nil {
		f.Bench = &results.BenchInfo{Version: results.HostVersion()}
	}
	if args, ok := ctx.Value(commandKey{}).([]string); ok {
		f.Bench.Command = args
	}
	if h, err := os.Hostname(); err == nil {
		f.Bench.Host = h
	}
	f.Bench.Date = time.Now().UTC().Format(time.RFC3339)
}
