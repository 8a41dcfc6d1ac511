package sandbox

// Capabilities: none for the plugin, for good, and no new privileges.

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// The secure bits (linux/securebits.h; golang.org/x/sys/unix has no
// names for them). Each has a lock bit just above it that makes it
// permanent.
const (
	// secbitNoroot: uid 0 gains no capability by execve(2).
	secbitNoroot = 1 << 0
	// secbitNorootLocked locks secbitNoroot.
	secbitNorootLocked = 1 << 1
	// secbitNoSetuidFixup: changing uids to or from 0 does not change
	// the capability sets.
	secbitNoSetuidFixup = 1 << 2
	// secbitNoSetuidFixupLocked locks secbitNoSetuidFixup.
	secbitNoSetuidFixupLocked = 1 << 3
	// secbitKeepCaps: permitted capabilities are kept when every uid
	// leaves 0 (cleared at execve).
	secbitKeepCaps = 1 << 4
	// secbitKeepCapsLocked locks secbitKeepCaps.
	secbitKeepCapsLocked = 1 << 5

	// pluginSecbits are the bits the launcher sets, each locked.
	pluginSecbits = secbitNoroot | secbitNorootLocked |
		secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCaps | secbitKeepCapsLocked
)

// dropCapabilities makes sure that the plugin holds no capability: the
// launcher is root in its user namespace (it mounted /proc), and bench may
// run as root. With secbitNoroot an execve by uid 0 gains none, and the
// bounding and ambient sets are emptied. An unprivileged launcher without
// namespaces has no capability to drop, nor the right to set the bits.
func dropCapabilities(*setup) error {
	var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("reading capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, pluginSecbits, 0, 0, 0); err != nil {
		return fmt.Errorf("setting the secure bits: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// noNewPrivs sets no_new_privs: no execve may grant a privilege (setuid,
// file capabilities), and Landlock and seccomp may be applied without
// CAP_SYS_ADMIN.
func noNewPrivs(*setup) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	return nil
}
