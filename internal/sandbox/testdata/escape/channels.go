//go:build linux

package main

// The channels two policies' plugins could talk through: each attempt
// takes the resource a second plugin would watch or take (a lock on a
// file both may read, a watch on a directory both may read, an IPC
// object) and gives it back at once.

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// onShared runs f on a file every plugin may read: its own executable
// stands for one.
func onShared(f func(fd int) error) func(*inputs) (string, error) {
	return func(*inputs) (string, error) {
		exe, _ := os.Executable()
		fd, err := unix.Open(exe, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		return "", f(fd)
	}
}

var lockFlock = onShared(func(fd int) error {
	if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err != nil {
		return err
	}
	return unix.Flock(fd, unix.LOCK_UN)
})

func fcntlLock(cmd int) func(int) error {
	return func(fd int) error {
		lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0}
		return unix.FcntlFlock(uintptr(fd), cmd, &lk)
	}
}

// fcntlHighBits is F_SETLK with bits above 32 set: the kernel reads an
// int.
func fcntlHighBits(fd int) error {
	lk := unix.Flock_t{Type: unix.F_RDLCK}
	_, _, errno := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), uintptr(1<<32|unix.F_SETLK), uintptr(unsafe.Pointer(&lk)))
	if errno != 0 {
		return errno
	}
	return nil
}

func lease(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		return err
	}
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
	return err
}

func exeDir() string {
	exe, _ := os.Executable()
	return filepath.Dir(exe)
}

func dnotify(*inputs) (string, error) {
	fd, err := unix.Open(exeDir(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	_, err = unix.FcntlInt(uintptr(fd), unix.F_NOTIFY, 1) // DN_ACCESS
	return "", err
}

func inotify(*inputs) (string, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	_, err = unix.InotifyAddWatch(fd, exeDir(), unix.IN_OPEN|unix.IN_ACCESS)
	return "", err
}

func sysvShm(*inputs) (string, error) {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		return "", err
	}
	_, err = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	return fmt.Sprintf("segment %d", id), err
}

func sysvMsg(*inputs) (string, error) {
	id, _, errno := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
	if errno != 0 {
		return "", errno
	}
	unix.Syscall(unix.SYS_MSGCTL, id, unix.IPC_RMID, 0)
	return fmt.Sprintf("queue %d", id), nil
}

func sysvSem(*inputs) (string, error) {
	id, _, errno := unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
	if errno != 0 {
		return "", errno
	}
	unix.Syscall6(unix.SYS_SEMCTL, id, 0, unix.IPC_RMID, 0, 0, 0)
	return fmt.Sprintf("set %d", id), nil
}

func mqueue(in *inputs) (string, error) {
	name, err := unix.BytePtrFromString("regretbench-escape-" + in.marker + in.token)
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
}
