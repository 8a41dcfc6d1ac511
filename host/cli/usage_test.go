package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// TestUsageErrors: every way of calling bench wrongly that cobra detects
// is exit 2 with the usage hint of the command at fault. The errors are
// typed (markUsage), not recognised by their wording.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		msg  string
		cmd  string
	}{
		{[]string{"--bogus"}, "unknown flag: --bogus", "bench"},
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "bench"`, "bench"},
		{[]string{"run", "--runs"}, "flag needs an argument: --runs", "bench run"},
		{[]string{"run", "--runs", "many"}, `invalid argument "many" for "--runs"`, "bench run"},
		{[]string{"gate", "one.json"}, "accepts 2 arg(s), received 1", "bench gate"},
		{[]string{"scenarios", "show", "a", "b"}, "accepts 1 arg(s), received 2", "bench scenarios show"},
		{[]string{"merge"}, "requires at least 1 arg(s), only received 0", "bench merge"},
		{[]string{"conform"}, "accepts 1 arg(s), received 0", "bench conform"},
		{[]string{"plugins", "extra"}, `unknown command "extra" for "bench plugins"`, "bench plugins"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			// In process, with no plugins: cobra stops each before a
			// command runs.
			var out, errb bytes.Buffer
			code := cli.ExitCode(cli.Run(context.Background(), c.args, &out, &errb))
			stderr := errb.String()
			if code != 2 || !strings.Contains(stderr, c.msg) || !strings.Contains(stderr, "Run '"+c.cmd+" --help' for usage.") {
				t.Errorf("exit %d, stderr %q; want 2, %q and the usage hint of %q", code, stderr, c.msg, c.cmd)
			}
		})
	}
}
