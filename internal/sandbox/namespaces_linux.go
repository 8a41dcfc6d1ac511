package sandbox

// Namespaces: new user, mount, PID, network, IPC and UTS namespaces, made
// by clone(2) as bench starts the launcher; the launcher checks it is the
// new PID namespace's init and names its host.

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// cloneNamespaces sets attr to start the launcher in new namespaces, as
// root of a user namespace that maps only bench's own uid and gid.
func cloneNamespaces(attr *syscall.SysProcAttr) {
	attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
		syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// checkInit refuses to go on unless the launcher is the init of a new PID
// namespace: started without its clone flags (by a bug of its caller), a
// launcher running as root would remount the machine's /proc
// (mounts_linux.go).
func checkInit(*setup) error {
	if os.Getpid() != 1 {
		return fmt.Errorf("namespaces: the launcher is not the init of a new PID namespace (pid %d); refusing to mount", os.Getpid())
	}
	return nil
}

// sandboxHostname is the host name a plugin sees in its UTS namespace.
const sandboxHostname = "regretbench-sandbox"

// setHostname names the UTS namespace's host, so that the plugin does not
// see the machine's name.
func setHostname(*setup) error {
	if err := unix.Sethostname([]byte(sandboxHostname)); err != nil {
		return fmt.Errorf("namespaces: setting the host name: %w", err)
	}
	return nil
}
