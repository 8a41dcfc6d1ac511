package engine_test

import (
	"bytes"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
)

// panicked is a failed policy's error as job.fail stores it: the
// condensed message, then the stack.
const panicked = "plugin /p/bench-plugin-x: step round 5: policy panicked: boom\nat main.boom (/src/main.go:250)\n" +
	"goroutine 35 [running]:\nmain.boom(0x5)\n\t/src/main.go:250 +0x6e\ncreated by main.run in goroutine 20\n\t/src/main.go:10 +0x1b8"

// fatal is a plugin that died of a Go fatal error (out of memory).
const fatal = "plugin /p/bench-plugin-y: step round 2: the connection to the plugin broke\n  plugin stderr (last lines):\n" +
	"    fatal error: runtime: out of memory\n    runtime stack:\n    runtime.throw({0x1, 0x2})\n    \t/go/src/runtime/panic.go:1101 +0x48"

// TestWriteStacks: the stack of each failed policy whose error holds one
// is written, said to be a panic's or a fatal error's, indented; a failed
// policy without a stack and a policy that did not fail write nothing.
func TestWriteStacks(t *testing.T) {
	for _, tc := range []struct {
		name string
		pol  results.Policy
		want string
	}{
		{"panic", results.Policy{Label: "TS", Plugin: "x", Status: results.StatusFailed, Error: panicked},
			"bench: policy \"TS\" (plugin x) panicked; its stack:\n  goroutine 35 [running]:\n  main.boom(0x5)\n  \t/src/main.go:250 +0x6e\n" +
				"  created by main.run in goroutine 20\n  \t/src/main.go:10 +0x1b8\n"},
		{"fatal error", results.Policy{Label: "Big", Plugin: "y", Status: results.StatusFailed, Error: fatal},
			"bench: policy \"Big\" (plugin y) died of a Go fatal error; its stack:\n  runtime stack:\n  runtime.throw({0x1, 0x2})\n  \t/go/src/runtime/panic.go:1101 +0x48\n"},
		{"no stack", results.Policy{Label: "TS", Plugin: "x", Status: results.StatusFailed, Error: "plugin x: step round 5: model diverged"}, ""},
		{"not failed", results.Policy{Label: "TS", Plugin: "x", Status: results.StatusOK, Error: panicked}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			engine.WriteStacks(&b, &results.File{}, &results.File{Policies: []*results.Policy{&tc.pol}})
			if b.String() != tc.want {
				t.Errorf("wrote:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}
