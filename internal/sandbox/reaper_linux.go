package sandbox

// The reaper: the launcher is a child subreaper, so that every
// descendant of the plugin, even one that started a session of its own,
// is reparented to it and killed when the plugin's session ends.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes the launcher a child subreaper (a step of
// confine).
func becomeSubreaper(*setup) error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming a child subreaper: %w", err)
	}
	return nil
}

// killDescendants kills every child of this process with SIGKILL and reaps
// it, until none is left. As a child subreaper, this process inherits the
// children of each one killed, however deep they had nested or whatever
// session they had started: the loop ends only when wait reports none.
func killDescendants() {
	self := os.Getpid()
	for {
		for _, pid := range childrenOf(self) {
			unix.Kill(pid, unix.SIGKILL)
		}
		var ws unix.WaitStatus
		_, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.ECHILD) {
			return
		}
		// Reap what has died; a child that is not dead yet (being killed,
		// or just inherited) is found again on the next pass.
		for {
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var kids []int
	for _, n := range names {
		p, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(p); ok && ppid == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

// parentOf reads the parent pid of pid from /proc/pid/stat.
func parentOf(pid int) (int, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(line[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}
