// Package procs sizes the Go scheduler for programs whose goroutines wait
// in blocking reads of step sockets: bench and every Go plugin (sdk.Serve)
// give the runtime one P to spare (SpareP), and count the cores they compute
// on without it (Cores).
package procs

import (
	"os"
	"runtime"
	"sync/atomic"
)

// spared is the GOMAXPROCS that SpareP set, 0 if it set none.
var spared atomic.Int64

// SpareP gives the Go scheduler one P (processor) more than the cores the
// program computes on, unless the GOMAXPROCS environment variable is set,
// which it then leaves alone. sdk.Serve calls it, and so does bench's main.
//
// Why: on Linux a session waits for each round in a blocking read(2) of
// its step socket, which the kernel wakes directly, instead of parking on
// Go's network poller. A goroutine blocked in a system call keeps its P,
// and when every P is held so, the runtime's monitor thread takes them
// back after 20 us and keeps waking every 20 us to do it; each hand-off
// and each wake-up is a context switch. With one P to spare it has none to
// take, and sleeps. On the 2-core VM the README's numbers come from, this
// cut the context switches of a ReMax run by 40% and its wall time by 13%.
//
// Like any call of runtime.GOMAXPROCS, it stops the runtime from following
// later changes of the container's CPU limit.
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

// Cores returns how many goroutines should compute at once: GOMAXPROCS,
// less the P that SpareP added. It assumes that nothing set GOMAXPROCS
// back to that same value since.
func Cores() int {
	n := runtime.GOMAXPROCS(0)
	if int64(n) == spared.Load() {
		return n - 1
	}
	return n
}
