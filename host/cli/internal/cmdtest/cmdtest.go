// Package cmdtest holds the helpers of the command packages' tests under
// host/cli: execute a command line on a root whose runF captures the
// parsed options in place of running (Parsed), and run a table of such
// command lines with their environment and --config file (Run).
package cmdtest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/run"
)

// Root returns a root command as bench's reads its persistent flags:
// --config and --plugin-dir fill f, and BENCH_* variables and the
// --config file fill unset flags (cmdutil.Factory.Bind).
func Root(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "bench", SilenceUsage: true, SilenceErrors: true, Args: cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return f.Bind(cmd) }}
	cmdutil.AddRootFlags(root, f)
	return root
}

// Parsed executes args on root(f) holding the command newCmd builds,
// whose runF captures the options in place of running, and returns them
// (nil when runF was not reached) with the factory and the error.
func Parsed[T any](t *testing.T, root func(*cmdutil.Factory) *cobra.Command, newCmd func(*cmdutil.Factory, func(*T) error) *cobra.Command, args ...string) (*T, *cmdutil.Factory, error) {
	t.Helper()
	f := &cmdutil.Factory{Stdout: io.Discard, Stderr: io.Discard}
	var got *T
	r := root(f)
	r.AddCommand(newCmd(f, func(o *T) error { got = o; return nil }))
	cmdutil.MarkUsage(r)
	r.SetOut(io.Discard)
	r.SetErr(io.Discard)
	r.SetArgs(args)
	err := r.ExecuteContext(context.Background())
	return got, f, err
}

// ConfigFile writes a --config file and returns its path.
func ConfigFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Case is one command line of an options test: its arguments, the
// environment, an optional --config file's content, and a check of the
// options (or, with Err, the error that must stop the command before
// runF).
type Case[T any] struct {
	Name   string
	Args   []string
	Env    map[string]string
	Config string
	Check  func(t *testing.T, o *T, f *cmdutil.Factory)
	Err    string
}

// Run runs each case on root(f) with the command newCmd builds.
func Run[T any](t *testing.T, root func(*cmdutil.Factory) *cobra.Command, newCmd func(*cmdutil.Factory, func(*T) error) *cobra.Command, cases []Case[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			for k, v := range tc.Env {
				t.Setenv(k, v)
			}
			args := tc.Args
			if tc.Config != "" {
				args = append(slices.Clone(args), "--config", ConfigFile(t, tc.Config))
			}
			o, f, err := Parsed(t, root, newCmd, args...)
			if tc.Err != "" {
				// A usage error (a bad argument count) becomes exit 2 in Run.
				code := run.ExitCode(err)
				if err == nil || !strings.Contains(err.Error(), tc.Err) || (code != exitcode.Input && !cmdutil.IsUsage(err)) {
					t.Fatalf("error %v (exit %d), want an input or usage error %q", err, code, tc.Err)
				}
				if o != nil {
					t.Errorf("runF ran with %+v after the error", *o)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o == nil {
				t.Fatal("runF was not called")
			}
			tc.Check(t, o, f)
		})
	}
}

// Eq reports a field whose value differs from want.
func Eq[V any](t *testing.T, field string, got, want V) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", field, got, want)
	}
}

// LimitDefaults gives o the --limit-* flags' defaults, as every command
// that starts plugins has them unless told otherwise.
func LimitDefaults(o cmdutil.SandboxOptions) cmdutil.SandboxOptions {
	o.LimitMemory, o.LimitTasks, o.LimitFiles, o.LimitDisk, o.LimitDiskFiles, o.LimitBy = "4GiB", "256", "1024", "1GiB", "10000", "auto"
	return o
}
