package sdk

import (
	"os"
	"runtime"
	"sync/atomic"
)

// spared is the GOMAXPROCS that SpareP set, 0 if it set none.
var spared atomic.Int64

// SpareP gives the Go scheduler one P (processor) more than the cores the
// program computes on, unless the GOMAXPROCS environment variable is set,
// which it then leaves alone. Serve calls it, and so does the host.
//
// Why: a session waits for each round in a blocking read of its step
// socket (see stepconn_unix.go). When every P is held by a goroutine
// blocked in a system call, the runtime's monitor thread takes the Ps back
// after 20 us and hands them to other threads, and keeps waking every
// 20 us to do so; each hand-off, and each wake-up, is a context switch.
// With one P to spare it has none to take, and sleeps. On the 2-core VM
// the README's numbers come from, this cut the context switches of a ReMax
// run by 40% and its wall time by 13%.
func SpareP() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	n := runtime.GOMAXPROCS(0)
	if int64(n) == spared.Load() {
		return
	}
	runtime.GOMAXPROCS(n + 1)
	spared.Store(int64(n + 1))
}

// Cores is how many goroutines should compute at once: GOMAXPROCS, less
// the P that SpareP added.
func Cores() int {
	n := runtime.GOMAXPROCS(0)
	if int64(n) == spared.Load() {
		return n - 1
	}
	return n
}
