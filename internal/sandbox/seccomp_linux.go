package sandbox

// seccomp: no sockets but unix stream sockets, no connect(2), no ptrace
// and the like, no file locks, inotify, dnotify or IPC between plugins,
// no system call of another architecture.

import (
	"fmt"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// denied lists the system calls a plugin may not make: they reach other
// processes (ptrace, process_vm_*, pidfd_getfd, kcmp), the kernel's
// configuration (bpf, keys, modules, kexec, mounts, namespaces, clocks,
// swap, reboot), or bypass this filter (io_uring runs operations without
// system calls). They fail with EPERM.
var denied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"process_madvise", "move_pages", "migrate_pages",
	"bpf", "perf_event_open", "userfaultfd",
	"keyctl", "add_key", "request_key",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount",
	"open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
	"unshare", "setns",
	"open_by_handle_at", "name_to_handle_at",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "syslog",
	"iopl", "ioperm", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "vhangup", "lookup_dcookie", "uselib",
	"fanotify_init",
	// Channels between two policies' plugins (docs/threat-model.md): a
	// lock on a file both may read, a watch on a directory both may read
	// (inotify sees the other's opens), System V IPC and POSIX message
	// queues, which without an IPC namespace (the fallback) are the
	// host's. fcntl's lock, lease and notify commands: fcntlDenied.
	"flock", "inotify_init", "inotify_init1", "inotify_add_watch",
	"shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
	"semget", "semop", "semtimedop", "semctl",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
	// connect(2) reaches another endpoint; a plugin only listens (its
	// go-plugin socket and its step socket) and bench connects.
	"connect",
}

// newNamespaces are clone(2)'s flags that make new namespaces.
const newNamespaces = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// seccompPolicy is the filter's policy: allow by default, deny the calls
// above, sockets other than unix stream sockets, and clone(2) with a new
// namespace; clone3, whose flags a filter cannot read, reports ENOSYS so
// that the C library falls back to clone.
func seccompPolicy() seccomp.Policy {
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM), Names: denied},
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}},
			{
				Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM),
				NamesWithCondtions: []seccomp.NameWithConditions{
					{Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX}}},
					// SOCK_STREAM is 1; every other type sets a bit of 0xe
					// (the flags SOCK_NONBLOCK and SOCK_CLOEXEC lie above):
					// a datagram socket could send to a path without
					// connect(2).
					{Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.BitsSet, Value: 0xe}}},
					{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespaces}}},
				},
			},
		},
	}
}

// fcntlDenied are fcntl(2)'s commands that lock a file (POSIX and open
// file description locks, and the 64-bit variants a 32-bit table has),
// take a lease on it or watch a directory (dnotify): each lets two
// plugins that may read one file signal each other through it.
var fcntlDenied = []uint32{
	unix.F_GETLK, unix.F_SETLK, unix.F_SETLKW,
	12, 13, 14, // F_GETLK64, F_SETLK64, F_SETLKW64
	unix.F_OFD_GETLK, unix.F_OFD_SETLK, unix.F_OFD_SETLKW,
	unix.F_SETLEASE, unix.F_GETLEASE, unix.F_NOTIFY,
}

// argLow is the offset in seccomp_data of the low 32 bits of argument i:
// the kernel reads an int argument (fcntl's cmd) from them alone, so the
// filter must not compare the whole 64 bits, whose upper half a caller
// may fill at will.
func argLow(i uint32) uint32 {
	off := 16 + 8*i // seccomp_data.args[i]
	var x uint16 = 1
	if *(*byte)(unsafe.Pointer(&x)) == 0 { // big-endian
		off += 4
	}
	return off
}

// fcntlGuard is the filter's part for fcntl(2): fcntlDenied fail with
// EPERM, every other command goes on to the rest of the program.
func fcntlGuard() []bpf.Instruction {
	n := len(fcntlDenied)
	insts := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_FCNTL, SkipTrue: uint8(n + 3)},
		bpf.LoadAbsolute{Off: argLow(1), Size: 4},
	}
	for i, cmd := range fcntlDenied {
		// On a match skip the commands left and the jump past the return.
		insts = append(insts, bpf.JumpIf{Cond: bpf.JumpEqual, Val: cmd, SkipTrue: uint8(n - i)})
	}
	return append(insts,
		bpf.Jump{Skip: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.EPERM)},
	)
}

// seccompProgram assembles the filter. Before the policy's own program, it
// refuses every system call made through another architecture's entry
// (int 0x80 on amd64 reports i386), which the policy, written for the
// native table, would otherwise allow by default, and checks fcntl's
// command (fcntlGuard).
func seccompProgram() (*unix.SockFprog, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	pol := seccompPolicy()
	insts, err := pol.Assemble()
	if err != nil {
		return nil, err
	}
	const archOffset = 4 // seccomp_data.arch
	guard := []bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.ENOSYS)},
	}
	guard = append(guard, fcntlGuard()...)
	raw, err := bpf.Assemble(append(guard, insts...))
	if err != nil {
		return nil, fmt.Errorf("assembling: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return &unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}, nil
}

// buildFilter assembles the filter (a step of confine).
func buildFilter(st *setup) error {
	p, err := seccompProgram()
	if err != nil {
		return fmt.Errorf("seccomp: building the filter: %w", err)
	}
	st.filter = p
	return nil
}

// loadFilter loads the filter on the calling thread, for good (a step of
// confine).
func loadFilter(st *setup) error {
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(st.filter)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: loading the filter: %w", err)
	}
	return nil
}
