package dataset

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var vmHWM = regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB`)

// rssModeEnv tells the test binary, re-executed by TestResidentMemory,
// which child to be.
const rssModeEnv = "DATASET_RSS_MODE"

// TestResidentMemoryChild is TestResidentMemory's child process: with
// rssModeEnv "idle" it does what a context-free bench does with this
// package (Names, Lookup, Infos: nothing decoded); with "touch" it reads
// every embedded file through a small buffer, so that the files' pages,
// and little else, become resident. Each prints its peak resident memory
// (VmHWM).
func TestResidentMemoryChild(t *testing.T) {
	switch os.Getenv(rssModeEnv) {
	case "":
		t.Skip("TestResidentMemory's child: runs only in the process that test starts")
	case "idle":
		if len(Names()) == 0 || len(Infos()) == 0 {
			t.Fatal("no datasets")
		}
		if _, ok := Lookup("shuttle"); !ok {
			t.Fatal("no shuttle")
		}
	case "touch":
		buf := make([]byte, 32<<10)
		for _, name := range Names() {
			f, err := files.Open("data/" + name + ".csv.gz")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	default:
		t.Fatalf("%s=%q: want idle or touch", rssModeEnv, os.Getenv(rssModeEnv))
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Println(line)
		}
	}
}

// TestResidentMemory: the embedded files are not resident in a process
// that loads no dataset. The test binary (which embeds them) is run twice:
// once doing what a context-free bench does with this package, once
// reading every embedded byte. The second's peak resident memory exceeds
// the first's by at least half the files' size (about 85% of it, as
// measured: the kernel maps a few neighbouring pages with each page
// touched): had the files been decoded or paged in at start-up, both
// would hold them and the difference would be near 0.
func TestResidentMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips re-running the test binary twice to measure its resident memory")
	}
	total := 0
	m, err := fs.Glob(files, "data/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m {
		st, err := fs.Stat(files, p)
		if err != nil {
			t.Fatal(err)
		}
		total += int(st.Size())
	}
	peak := func(mode string) int {
		cmd := exec.Command(os.Args[0], "-test.run=^TestResidentMemoryChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), rssModeEnv+"="+mode, "GOGC=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child %s: %v\n%s", mode, err, out)
		}
		// The child's own peak, from /proc: the rusage of a child started
		// by vfork counts the parent's peak, as exec keeps it.
		m := vmHWM.FindSubmatch(out)
		if m == nil {
			t.Fatalf("child %s printed no VmHWM:\n%s", mode, out)
		}
		kb, err := strconv.Atoi(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		return kb << 10
	}
	idle, touch := peak("idle"), peak("touch")
	t.Logf("peak resident memory: %d kB idle, %d kB having read the %d kB of embedded files", idle>>10, touch>>10, total>>10)
	if touch-idle < total/2 {
		t.Errorf("reading the embedded files raised the peak resident memory by %d kB only, of their %d kB: they were resident before any was read", (touch-idle)>>10, total>>10)
	}
}
