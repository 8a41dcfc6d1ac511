package sandbox

// Mounts: the launcher's mount namespace made private, and a fresh /proc
// for its PID namespace, which shows only the plugin's own processes.

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// mountProc makes the mount namespace private and mounts a fresh /proc
// for the new PID namespace, of which the launcher is init (checkInit has
// made sure).
func mountProc(*setup) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("namespaces: making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("namespaces: mounting a fresh /proc: %w", err)
	}
	return nil
}
