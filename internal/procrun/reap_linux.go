package procrun

// Bench as its plugins' last reaper. A plugin that kills, stops or
// ptrace-freezes its launcher (possible wherever there is no PID
// namespace and no Landlock signal scope, and at --sandbox off) leaves
// the launcher unable to end what the plugin started. So bench makes
// itself a child subreaper when it starts a plugin: the orphans of a dead
// launcher come to bench, which kills and reaps them (sweepOrphans) each
// time a launcher exits, hence also at shutdown, when every client is
// closed. A stopped or traced launcher is killed by its process group
// (SIGKILL ends a stopped or traced process), with its tracer when that
// descends from it: a traced process's exit is reported to its tracer
// first, and bench could not reap it before the tracer does.
//
// Which children are orphans: bench's children that procrun did not
// start (ours) and that are in the process group of a launcher procrun
// started (groups), or in another session than bench's. A plugin and what
// it starts stay in its launcher's group, or leave it for a session of
// their own (setsid); what bench itself starts otherwise (a test binary's
// go build or bench, the sandbox's probe) is in bench's session and in
// no launcher's group. Orphans are reaped by pid, never by wait(-1),
// which would take os/exec's statuses.
//
// Not found: a descendant that, its launcher dead, made a process group of
// its own within bench's session (setpgid), which a plugin can do only
// where it can kill its launcher too: --sandbox off, or the fallback on a
// kernel without Landlock's signal scope (ABI < 6).

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// orphanWait bounds a sweep: how long it may wait for the orphans it
// killed to die (one in uninterruptible sleep, or traced by a live
// stranger) before it leaves them.
const orphanWait = 10 * time.Second

var reaper struct {
	once sync.Once
	ok   bool // bench is a child subreaper
	// mu is held across a start and its registration in ours, and across
	// a sweep's look at the children: a sweep never sees a child procrun
	// has started but not yet registered.
	mu     sync.Mutex
	ours   map[int]bool // the pids procrun started and has not reaped
	groups map[int]bool // their process groups, until empty
}

// becomeReaper makes bench a child subreaper, once.
func becomeReaper() {
	reaper.once.Do(func() {
		reaper.ok = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	})
}

// startTracked runs start, which starts a process, and registers the pid
// it returns as one of procrun's own.
func startTracked(start func() (int, error)) error {
	becomeReaper()
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	pid, err := start()
	if err == nil {
		if reaper.ours == nil {
			reaper.ours, reaper.groups = map[int]bool{}, map[int]bool{}
		}
		reaper.ours[pid] = true
		reaper.groups[pid] = true
	}
	return err
}

// reapTracked reaps procrun's process pid with wait and forgets it, at
// once: its pid cannot be another process's meanwhile.
func reapTracked(pid int, wait func() error) error {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	err := wait()
	delete(reaper.ours, pid)
	return err
}

// sweepOrphans kills and reaps bench's orphans (see above), generation
// after generation: each one killed hands its own children to bench. It
// then forgets the launchers' process groups that are empty.
func sweepOrphans() {
	if !reaper.ok {
		return
	}
	self := os.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		return
	}
	pending := map[int]bool{}
	deadline := time.Now().Add(orphanWait)
	for {
		found := false
		reaper.mu.Lock()
		for _, pid := range childrenOf(self) {
			if reaper.ours[pid] {
				continue
			}
			pg, err := unix.Getpgid(pid)
			if err != nil {
				continue
			}
			if s, err := unix.Getsid(pid); err != nil || s == sid && !reaper.groups[pg] {
				continue
			}
			unix.Kill(pid, unix.SIGKILL)
			if !pending[pid] {
				found = true
			}
			pending[pid] = true
		}
		reaper.mu.Unlock()
		for pid := range pending {
			var ws unix.WaitStatus
			got, err := unix.Wait4(pid, &ws, unix.WNOHANG|unix.WALL, nil)
			if got == pid || errors.Is(err, unix.ECHILD) {
				delete(pending, pid)
			}
		}
		if !found && len(pending) == 0 || time.Now().After(deadline) {
			forgetGroups()
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// forgetGroups forgets the process groups of launchers no longer running
// that have no member left: their number may be another's from now on.
func forgetGroups() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	for g := range reaper.groups {
		if !reaper.ours[g] && errors.Is(unix.Kill(-g, 0), unix.ESRCH) {
			delete(reaper.groups, g)
		}
	}
}

// childrenOf lists the children of process pid: from each of its
// threads' children files, else by a scan of /proc.
func childrenOf(pid int) []int {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tids, err := os.ReadDir(base)
	if err == nil && len(tids) > 0 {
		if _, err := os.Stat(base + "/" + tids[0].Name() + "/children"); err == nil {
			var kids []int
			for _, t := range tids {
				data, _ := os.ReadFile(base + "/" + t.Name() + "/children")
				for _, f := range strings.Fields(string(data)) {
					if k, err := strconv.Atoi(f); err == nil {
						kids = append(kids, k)
					}
				}
			}
			return kids
		}
	}
	ents, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := statusField(p, "PPid:"); ok && pp == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

// statusField reads a numeric field of /proc/PID/status.
func statusField(pid int, name string) (int, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil
		}
	}
	return 0, false
}

// killTracer kills the process that ptrace-traces pid, if it descends
// from pid: a plugin (or its helper) that froze its launcher. A tracer
// from elsewhere (a debugger) is left alone.
func killTracer(pid int) {
	tracer, ok := statusField(pid, "TracerPid:")
	if !ok || tracer == 0 || tracer == os.Getpid() {
		return
	}
	for p, n := tracer, 0; p > 1 && n < 64; n++ {
		pp, ok := statusField(p, "PPid:")
		if !ok {
			return
		}
		if pp == pid {
			unix.Kill(tracer, unix.SIGKILL)
			return
		}
		p = pp
	}
}
