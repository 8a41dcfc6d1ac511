package client

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTailQuotesTheCrash: when a plugin dies of a Go fatal error (here a
// real one of Go 1.26: out of memory, then a dump of every goroutine) or
// panic, the error quotes the runtime's line, the header and, condensed by
// SplitPanic, the frame of the goroutine that failed, not the last lines
// of the dump (some other goroutine's frames), however long the dump, even
// beyond the ring's 64 KiB.
func TestTailQuotesTheCrash(t *testing.T) {
	oom, err := os.ReadFile("testdata/oom.txt")
	if err != nil {
		t.Fatal(err)
	}
	// More goroutines, as a plugin serving many replications has: the
	// dump of testdata/oom.txt's goroutine 7, under other numbers.
	block := regexp.MustCompile(`(?s)goroutine 7 gp=.*?\n\n`).Find(oom)
	if block == nil {
		t.Fatal("testdata/oom.txt lacks goroutine 7")
	}
	var many strings.Builder
	many.Write(oom)
	for g := 100; many.Len() < 200<<10; g++ {
		many.WriteString(strings.Replace(string(block), "goroutine 7 ", fmt.Sprintf("goroutine %d ", g), 1))
	}
	panicked := "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 35 [running]:\n" +
		"main.(*policy).Select(0xc0000b6000, 0x5)\n\t/src/mine/main.go:41 +0x1b8\n" +
		"github.com/regretbench/regretbench/sdk.(*core).step(0xc000047c58?)\n\t/src/sdk/core.go:203 +0x56\n\n" +
		"goroutine 1 [select]:\nmain.main()\n\t/src/mine/main.go:12 +0x25\n"
	for _, c := range []struct {
		name, stderr string
		want         []string // the quote, condensed, line by line
	}{
		{"out of memory", string(oom), []string{
			"runtime: out of memory: cannot allocate 67108864-byte block (742129664 in use)",
			"fatal error: out of memory",
			"at main.grow (/tmp/oom/main.go:13)",
		}},
		{"out of memory, 200 kB of goroutines", many.String(), []string{
			"runtime: out of memory: cannot allocate 67108864-byte block (742129664 in use)",
			"fatal error: out of memory",
			"at main.grow (/tmp/oom/main.go:13)",
		}},
		{"panic after log lines", "loading the model\n" + panicked, []string{
			"panic: runtime error: index out of range [3] with length 3",
			"at main.(*policy).Select (/src/mine/main.go:41)",
		}},
		{"no crash", "one\ntwo\nthree\n", []string{"plugin starting", "one", "two", "three"}},
	} {
		for _, chunk := range []int{1, 7, 4096, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d-byte writes", c.name, chunk), func(t *testing.T) {
				r := newRingBuffer(64 << 10)
				w := r.lineWriter()
				w.Write([]byte("plugin starting\n"))
				for s := c.stderr; s != ""; {
					n := min(chunk, len(s))
					w.Write([]byte(s[:n]))
					s = s[n:]
				}
				short, _ := SplitPanic(r.lastLines(tailLines))
				if got := strings.Split(short, "\n"); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
					t.Errorf("quoted:\n%s\nwant:\n%s", short, strings.Join(c.want, "\n"))
				}
			})
		}
	}
}

// TestTailPartialLine: a last line without a newline is quoted, from the
// raw stderr and from go-plugin's stdio stream alike, after the whole
// lines; before, it was held back for good.
func TestTailPartialLine(t *testing.T) {
	r := newRingBuffer(64 << 10)
	raw, synced := r.lineWriter(), r.lineWriter()
	raw.Write([]byte("first\nsecond"))
	synced.Write([]byte("third\nfourth, unfinished"))
	if got, want := r.lastLines(tailLines), "first\nthird\nsecond\nfourth, unfinished"; got != want {
		t.Errorf("quoted %q, want %q", got, want)
	}
	if got, want := r.lastLines(2), "second\nfourth, unfinished"; got != want {
		t.Errorf("last 2 lines %q, want %q", got, want)
	}
}
