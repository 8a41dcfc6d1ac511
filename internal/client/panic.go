package client

import (
	"regexp"
	"strings"
)

// goroutineHeader is the first line of a goroutine in a Go stack dump:
// "goroutine 7 [running]:", or, in a fatal error's dump,
// "goroutine 1 gp=0xc000002380 m=0 mp=0x5a3f40 [running]:".
var goroutineHeader = regexp.MustCompile(`^goroutine \d+ (?:[a-z]+=\S+ )*\[[^\]]*\]:$`)

// sourceLine matches a frame's file and line, in Go or assembly
// ("/usr/local/go/src/runtime/asm_amd64.s:1771 +0x1").
var sourceLine = regexp.MustCompile(`\.(?:go|s):\d+`)

// runtimeStack heads the system stack a fatal error's dump may start
// with, before the goroutine that failed.
const runtimeStack = "runtime stack:"

// sdkPackage and wirePackage prefix the functions of the SDK's policy
// runner and of the protocol's transports in a stack dump.
const (
	sdkPackage  = "github.com/regretbench/regretbench/sdk."
	wirePackage = "github.com/regretbench/regretbench/internal/wire."
)

// SplitPanic condenses the Go stack dumps in an error message (a policy
// panicked, and the plugin sent its stack, or quoted it from its stderr;
// the plugin died of a fatal error such as running out of memory) so that
// the message stays one short paragraph: each dump is replaced by one line
// "at FUNC (FILE:LINE)", the policy's own frame, the first that is neither
// the Go runtime's nor the SDK's (none for a fatal error's runtime stack).
// It returns the condensed message and the dumps it removed, "" when
// there were none.
func SplitPanic(msg string) (short, stack string) {
	lines := strings.Split(msg, "\n")
	var out, dumps []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if !goroutineHeader.MatchString(trimmed) && trimmed != runtimeStack {
			out = append(out, l)
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		j := i + 1
		for j < len(lines) && isStackLine(lines, j) {
			j++
		}
		dump := lines[i:j]
		for k, d := range dump {
			dump[k] = strings.TrimPrefix(d, indent)
		}
		dumps = append(dumps, strings.Join(dump, "\n"))
		if f := ownFrame(dump); f != "" {
			out = append(out, indent+"at "+f)
		}
		i = j - 1
	}
	if len(dumps) == 0 {
		return msg, ""
	}
	// The blank line a Go panic prints before its dump would now end the
	// paragraph early.
	kept := out[:0]
	for _, l := range out {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n"), strings.Join(dumps, "\n")
}

// isStackLine reports whether line j continues a stack dump: a file line,
// a function line followed by one, a goroutine header, or an elision.
func isStackLine(lines []string, j int) bool {
	l := strings.TrimSpace(lines[j])
	switch {
	case l == "":
		return false
	case goroutineHeader.MatchString(l), l == runtimeStack, strings.HasPrefix(l, "..."), sourceLine.MatchString(l):
		return true
	}
	return j+1 < len(lines) && sourceLine.MatchString(lines[j+1]) &&
		(strings.HasSuffix(l, ")") || strings.HasPrefix(l, "created by "))
}

// ownFrame returns "FUNC (FILE:LINE)" for the first frame of dump, below
// the call of panic if there is one, that is not in the runtime or this
// SDK; else for the first such frame that is not the runtime's.
func ownFrame(dump []string) string {
	var first string
	for k := 1; k < len(dump); k++ {
		fn := strings.TrimSpace(dump[k])
		if !strings.HasSuffix(fn, ")") || strings.HasPrefix(fn, "created by ") {
			continue
		}
		if i := strings.LastIndexByte(fn, '('); i > 0 {
			fn = fn[:i]
		}
		where := ""
		if k+1 < len(dump) {
			where = strings.TrimSpace(dump[k+1])
			if i := strings.Index(where, " +0x"); i >= 0 {
				where = where[:i]
			}
		}
		frame := fn
		if where != "" {
			frame += " (" + where + ")"
		}
		if fn == "panic" {
			first = "" // the frames above were the recovery's own
			continue
		}
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "runtime/") {
			continue
		}
		if first == "" {
			first = frame
		}
		if !strings.HasPrefix(fn, sdkPackage) && !strings.HasPrefix(fn, wirePackage) {
			return frame
		}
	}
	return first
}
