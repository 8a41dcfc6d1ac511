//go:build unix

package procrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A plugin's private directory is go-plugin's socket directory,
// TMPDIR/plugin-dirN, which the Runner removes when the plugin's process
// ends. A bench that is SIGKILLed removes nothing, so each private
// directory has an owner marker beside it, TMPDIR/plugin-dirN.bench-owner
// (outside the directory: a confined plugin can neither see nor change
// it), naming the bench that made it by its pid, its start time (field 22
// of /proc/PID/stat, in clock ticks since boot: a reused pid has another)
// and the boot it ran in. Sweep, which the first plugin launch of every
// command runs once, removes the directories whose owner is gone, and
// only those: never one of a live bench.

// ownerSuffix ends the name of a private directory's owner marker.
const ownerSuffix = ".bench-owner"

// dirPrefix begins the name of go-plugin's socket directories.
const dirPrefix = "plugin-dir"

var (
	selfOnce  sync.Once
	selfOwner string // "PID START BOOT"; "" when /proc cannot tell
	sweepOnce sync.Once
)

// owner returns the marker's text for this process: "PID START BOOT", or
// "" where /proc cannot tell a process's start time (not Linux).
func owner() string {
	selfOnce.Do(func() {
		pid := os.Getpid()
		start, boot := startTime(pid), bootID()
		if start != "" && boot != "" {
			selfOwner = fmt.Sprintf("%d %s %s", pid, start, boot)
		}
	})
	return selfOwner
}

// startTime returns field 22 of /proc/pid/stat, the process's start time
// in clock ticks since boot; "" when the process does not exist.
func startTime(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(data)
	// The command name, field 2, is in parentheses and may hold anything:
	// the fields after the last ')' are 3, 4, ...
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// bootID returns this boot's id, "" when unknown.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// MarkOwner writes the owner marker of the private directory dir: this
// process. Nothing where /proc cannot tell (the directory is then never
// swept).
func MarkOwner(dir string) error {
	o := owner()
	if o == "" {
		return nil
	}
	return os.WriteFile(dir+ownerSuffix, []byte(o+"\n"), 0o600)
}

// removeDir removes the private directory dir and its owner marker.
func removeDir(dir string) {
	os.RemoveAll(dir)
	os.Remove(dir + ownerSuffix)
}

// alive reports whether the owner a marker names, "PID START BOOT", is
// running: a malformed marker counts as alive, never to be swept on a
// guess.
func alive(marker string) bool {
	f := strings.Fields(marker)
	if len(f) != 3 {
		return true
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return true
	}
	if f[2] != bootID() {
		return false // an earlier boot: every process of it is gone
	}
	return startTime(pid) == f[1]
}

// Sweep removes from dir (TMPDIR) the private directories, and their
// markers, whose owner bench is gone, and returns their paths. It touches
// only plugin-dirN entries of this user that are directories (not
// symbolic links) with a marker of this user beside them, and nothing
// where /proc cannot tell whether a process runs.
func Sweep(dir string) []string {
	if owner() == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	uid := os.Getuid()
	mine := func(path string, wantDir bool) bool {
		st, err := os.Lstat(path)
		if err != nil || st.IsDir() != wantDir || (!wantDir && !st.Mode().IsRegular()) {
			return false
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		return ok && int(sys.Uid) == uid
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, dirPrefix) || !strings.HasSuffix(name, ownerSuffix) {
			continue
		}
		marker := filepath.Join(dir, name)
		private := strings.TrimSuffix(marker, ownerSuffix)
		if !mine(marker, false) {
			continue
		}
		data, err := os.ReadFile(marker)
		if err != nil || len(data) > 256 || alive(string(data)) {
			continue
		}
		if _, err := os.Lstat(private); err == nil && !mine(private, true) {
			continue // not a directory of this user: not bench's
		}
		removeDir(private)
		removed = append(removed, private)
	}
	return removed
}

// sweepTMPDIR runs Sweep over TMPDIR once per process, before its first
// plugin starts.
func sweepTMPDIR() { sweepOnce.Do(func() { Sweep(os.TempDir()) }) }
