//go:build linux

package main

// Finding bench among the probe's ancestors, and a page of a process's
// memory.

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ancestors lists the parent, its parent and so on, up to init.
func ancestors() []int {
	var out []int
	for pid := os.Getppid(); pid > 1 && len(out) < 16; {
		out = append(out, pid)
		stat, err := os.ReadFile(procFile(pid, "stat"))
		if err != nil {
			break
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])) // state ppid ...
		if len(f) < 2 {
			break
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return out
}

// benchPid returns the nearest ancestor whose command line has
// --scenario, and true; else the parent and false.
func benchPid() (int, bool) {
	for _, pid := range ancestors() {
		argv, _ := os.ReadFile(procFile(pid, "cmdline"))
		if strings.Contains(string(argv), "--scenario\x00") {
			return pid, true
		}
	}
	return os.Getppid(), false
}

// firstReadable returns the start of pid's first readable mapping.
func firstReadable(pid int) (uintptr, error) {
	f, err := os.Open(procFile(pid, "maps"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var lo, hi uint64
		var perms string
		if _, err := fmt.Sscanf(sc.Text(), "%x-%x %s", &lo, &hi, &perms); err == nil && strings.HasPrefix(perms, "r") {
			return uintptr(lo), nil
		}
	}
	return 0, fmt.Errorf("no readable mapping in /proc/%d/maps", pid)
}
