package client_test

import (
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/client"
)

// A policy's panic as the SDK reports it (recovered, with debug.Stack) and
// as a crashed plugin's stderr shows it inside a PluginError.
const (
	recovered = `plugin /p/bench-plugin-x: step round 5: policy panicked: boom
goroutine 35 [running]:
runtime/debug.Stack()
	/usr/local/go/src/runtime/debug/stack.go:26 +0x5e
github.com/regretbench/regretbench/sdk.protect.func1()
	/src/sdk/core.go:199 +0x45
panic({0x8e0b20?, 0xc0001a2000?})
	/usr/local/go/src/runtime/panic.go:783 +0x132
main.(*batch).boom(0xc0000b6000?, 0x5)
	/src/faulty/main.go:250 +0x6e
main.(*batch).Step(0xc0000b6000, 0xc0000b6040)
	/src/faulty/main.go:170 +0x1b8
github.com/regretbench/regretbench/sdk.protect(0xc000047c58?)
	/src/sdk/core.go:203 +0x56
created by google.golang.org/grpc.(*Server).serveStreams.func2 in goroutine 20
	/root/go/pkg/mod/google.golang.org/grpc@v1.85.0/server.go:1100 +0x125
  plugin stderr (last lines):
    faulty panic: about to panic at round 5`
	crashed = `plugin /p/bench-plugin-x: step round 5: the connection to the plugin broke (the plugin process exited)
  plugin stderr (last lines):
    panic: faulty crash-panic: boom at round 5
    goroutine 40 [running]:
    main.(*batch).fault.func1()
    	/src/faulty/main.go:190 +0x6e
    created by main.(*batch).fault in goroutine 35
    	/src/faulty/main.go:190 +0x1b8`
)

// TestSplitPanic: a stack in an error becomes the panic and the policy's
// own frame on one line; the full stack is returned apart.
func TestSplitPanic(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		want      []string // the short message, line by line
		stack     []string // in the stack
	}{
		{"recovered", recovered, []string{
			"plugin /p/bench-plugin-x: step round 5: policy panicked: boom",
			"at main.(*batch).boom (/src/faulty/main.go:250)",
			"  plugin stderr (last lines):",
			"    faulty panic: about to panic at round 5",
		}, []string{"goroutine 35 [running]:", "runtime/debug.Stack()", "main.(*batch).Step", "created by google.golang.org/grpc"}},
		{"crashed", crashed, []string{
			"plugin /p/bench-plugin-x: step round 5: the connection to the plugin broke (the plugin process exited)",
			"  plugin stderr (last lines):",
			"    panic: faulty crash-panic: boom at round 5",
			"    at main.(*batch).fault.func1 (/src/faulty/main.go:190)",
		}, []string{"goroutine 40 [running]:", "\t/src/faulty/main.go:190 +0x6e", "created by main.(*batch).fault in goroutine 35"}},
		{"no stack", "plugin x: step round 5: model diverged\n  plugin stderr (last lines):\n    main.go:12: oops", []string{
			"plugin x: step round 5: model diverged", "  plugin stderr (last lines):", "    main.go:12: oops",
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			short, stack := client.SplitPanic(c.msg)
			if got := strings.Split(short, "\n"); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("short message:\n%s\nwant:\n%s", short, strings.Join(c.want, "\n"))
			}
			if (stack == "") != (c.stack == nil) {
				t.Errorf("stack %q", stack)
			}
			for _, w := range c.stack {
				if !strings.Contains(stack, w) {
					t.Errorf("stack lacks %q:\n%s", w, stack)
				}
			}
		})
	}
}
