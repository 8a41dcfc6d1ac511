//go:build !linux

package main

import (
	"os"
	"syscall"
)

// stopSelf stops the process. Without tgkill the signal goes to the
// process, and the calling thread may carry on for a while before the
// stop takes effect (see stop_linux.go).
func stopSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
}

// checkStopSelf is mode stop-self, which needs Linux.
func checkStopSelf() int {
	say("needs Linux")
	return 4
}
