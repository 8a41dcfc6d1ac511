package main

// The channels two policies' plugins could talk through: each attempt
// takes the resource a second plugin would watch or take (a lock on a
// file both may read, a watch on a directory both may read, an IPC
// object) and gives it back at once.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

func channels(try func(string, func() (string, error)), marker string) {
	exe, _ := os.Executable()
	shared := func(f func(fd int) error) func() (string, error) {
		return func() (string, error) {
			fd, err := unix.Open(exe, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return "", err
			}
			defer unix.Close(fd)
			return "", f(fd)
		}
	}
	lock := func(cmd int) func(int) error {
		return func(fd int) error {
			lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0}
			return unix.FcntlFlock(uintptr(fd), cmd, &lk)
		}
	}
	try("lock-flock", shared(func(fd int) error {
		if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err != nil {
			return err
		}
		return unix.Flock(fd, unix.LOCK_UN)
	}))
	try("lock-fcntl", shared(lock(unix.F_SETLK)))
	try("lock-fcntl-getlk", shared(lock(unix.F_GETLK)))
	try("lock-ofd", shared(lock(unix.F_OFD_SETLK)))
	try("lock-fcntl-highbits", shared(func(fd int) error {
		// The command with bits above 32 set: the kernel reads an int.
		lk := unix.Flock_t{Type: unix.F_RDLCK}
		_, _, errno := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), uintptr(1<<32|unix.F_SETLK), uintptr(unsafe.Pointer(&lk)))
		if errno != 0 {
			return errno
		}
		return nil
	}))
	try("lease", shared(func(fd int) error {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
			return err
		}
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
		return err
	}))
	try("dnotify", func() (string, error) {
		fd, err := unix.Open(filepath.Dir(exe), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		_, err = unix.FcntlInt(uintptr(fd), unix.F_NOTIFY, 1) // DN_ACCESS
		return "", err
	})
	try("inotify", func() (string, error) {
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		_, err = unix.InotifyAddWatch(fd, filepath.Dir(exe), unix.IN_OPEN|unix.IN_ACCESS)
		return "", err
	})
	try("sysv-shm", func() (string, error) {
		id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
		if err != nil {
			return "", err
		}
		_, err = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return fmt.Sprintf("segment %d", id), err
	})
	try("sysv-msg", func() (string, error) {
		id, _, errno := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
		if errno != 0 {
			return "", errno
		}
		unix.Syscall(unix.SYS_MSGCTL, id, unix.IPC_RMID, 0)
		return fmt.Sprintf("queue %d", id), nil
	})
	try("sysv-sem", func() (string, error) {
		id, _, errno := unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
		if errno != 0 {
			return "", errno
		}
		unix.Syscall6(unix.SYS_SEMCTL, id, 0, unix.IPC_RMID, 0, 0, 0)
		return fmt.Sprintf("set %d", id), nil
	})
	try("mqueue", func() (string, error) {
		name, err := unix.BytePtrFromString("regretbench-escape-" + marker)
		if err != nil {
			return "", err
		}
		fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(name)), unix.O_CREAT|unix.O_RDWR|unix.O_CLOEXEC, 0o600, 0, 0, 0)
		if errno != 0 {
			return "", errno
		}
		unix.Close(int(fd))
		unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(name)), 0, 0)
		return "", nil
	})
	try("unix-connect-abstract", func() (string, error) {
		c, err := net.Dial("unix", "@"+os.Getenv("ESCAPE_ABSTRACT"))
		if err == nil {
			c.Close()
		}
		return "", err
	})
}
