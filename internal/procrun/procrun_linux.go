package procrun

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExit returns once process pid has exited, without reaping it, and
// reports whether it did so.
func waitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}
