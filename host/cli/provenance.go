package cli

import (
	"context"

	"github.com/regretbench/regretbench/host/results"
)

// commandKey is the context key of the command line bench was run with.
type commandKey struct{}

// withCommand returns ctx carrying bench's command line (args, without
// the program name), for the results files a run writes.
func withCommand(ctx context.Context, args []string) context.Context {
	return context.WithValue(ctx, commandKey{}, append([]string{"bench"}, args...))
}

// stamp records in f how it was produced, with the command line ctx
// carries (results.File.Stamp). Stamped only when the results are
// written to a file: the tables a run prints do not show them.
func stamp(ctx context.Context, f *results.File) {
	args, _ := ctx.Value(commandKey{}).([]string)
	f.Stamp(args)
}
