package cli

import "context"

// commandKey is the context key of the command line bench was run with.
type commandKey struct{}

// withCommand returns ctx carrying bench's command line (args, without
// the program name), for the results files a run writes.
func withCommand(ctx context.Context, args []string) context.Context {
	return context.WithValue(ctx, commandKey{}, append([]string{"bench"}, args...))
}

// command is the command line ctx carries (withCommand), recorded in the
// results files a run writes (run.Host.Command).
func command(ctx context.Context) []string {
	args, _ := ctx.Value(commandKey{}).([]string)
	return args
}
