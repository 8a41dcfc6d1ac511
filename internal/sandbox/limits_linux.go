package sandbox

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

const sigXFSZ = int(syscall.SIGXFSZ)

// allocated is the disk space a file takes: its 512-byte blocks.
func allocated(info os.FileInfo) int64 {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return allocatedSize(info, 0, false)
	}
	return allocatedSize(info, st.Blocks, true)
}

// launchLimits is what the launcher applies to itself, and so to the
// plugin it starts, before anything else (spec.Limits): the cgroup to
// join, and the rlimits (0: left as they are).
type launchLimits struct {
	Cgroups []string `json:"cgroups,omitempty"` // cgroup.procs files, one per hierarchy
	AS      uint64   `json:"as,omitempty"`
	NoFile  uint64   `json:"nofile,omitempty"`
	NProc   uint64   `json:"nproc,omitempty"`
	FSize   uint64   `json:"fsize,omitempty"`
}

// joinLimits applies the spec's limits (a step of confine).
func joinLimits(st *setup) error { return applyLimits(st.spec.Limits) }

// applyLimits puts the calling process into its cgroup and sets its
// rlimits, which the plugin inherits: run by the launcher before it
// starts the plugin, so that nothing of the plugin ever runs outside
// them. The launcher is in its cgroup too; an rlimit binds it as it binds
// the plugin (RLIMIT_AS has a floor, minRlimitMemory, for that reason).
func applyLimits(l *launchLimits) error {
	if l == nil {
		return nil
	}
	for _, f := range l.Cgroups {
		if err := os.WriteFile(f, []byte("0"), 0); err != nil {
			return fmt.Errorf("limits: joining the plugin's cgroup: %w", err)
		}
	}
	for _, r := range []struct {
		res  int
		v    uint64
		name string
	}{{unix.RLIMIT_AS, l.AS, "RLIMIT_AS"}, {unix.RLIMIT_NOFILE, l.NoFile, "RLIMIT_NOFILE"}, {unix.RLIMIT_NPROC, l.NProc, "RLIMIT_NPROC"}, {unix.RLIMIT_FSIZE, l.FSize, "RLIMIT_FSIZE"}} {
		if r.v == 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(r.res, &cur); err != nil {
			return fmt.Errorf("limits: reading %s: %w", r.name, err)
		}
		v := min(r.v, cur.Max)
		// syscall.Setrlimit, not unix's: for RLIMIT_NOFILE it also makes
		// the Go runtime give children this limit, not the one it found
		// at start.
		if err := syscall.Setrlimit(r.res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("limits: setting %s to %d: %w", r.name, v, err)
		}
	}
	return nil
}

// plan decides how the limits a Config asks for are enforced here, for
// plugins under layers: by a cgroup, by rlimits, or (without the
// launcher) not at all. It fails when --limit-by cgroup cannot be had, or
// when an rlimit on memory would be too low for the launcher to run.
func (l Limits) plan(layers Layers, launcher bool) (Limits, error) {
	by, err := ParseBy(l.By)
	if err != nil {
		return Limits{}, err
	}
	out := l.withDefaults()
	out.Notes = nil
	if !launcher {
		return Limits{By: byNone, Notes: []string{"no limit is in force: bench cannot find its own executable to start plugins through its launcher"}}, nil
	}
	var roots *cgroupRoots
	why := ""
	if by != ByRlimit {
		roots, why = probeCgroups()
		if roots == nil && by == ByCgroup {
			return Limits{}, &ConfigError{Setting: SettingLimitBy, Value: ByCgroup,
				Err:     fmt.Errorf("bench may not make cgroups with the memory and pids controllers here (%s)", why),
				Instead: []Alternative{{ByRlimit + " or " + ByAuto, "limits plugins by rlimits"}}}
		}
	}
	if roots != nil {
		out.By, out.roots = roots.String(), roots
		return out, nil
	}
	out.By = ByRlimit
	if out.Memory > 0 && out.Memory < minRlimitMemory {
		return Limits{}, &ConfigError{Setting: SettingLimitMemory, Value: FormatSize(out.Memory),
			Err: fmt.Errorf("without a cgroup bench bounds each process's address space (RLIMIT_AS), and a Go program (bench's launcher, a Go plugin) reserves about 1.2GiB of it as it starts, and each of its threads more: give at least %s", FormatSize(minRlimitMemory))}
	}
	if out.Tasks > 0 {
		switch {
		case layers&Namespaces == 0:
			out.Tasks = 0
			out.Notes = append(out.Notes, "tasks not limited: without a cgroup or a user namespace of its own, RLIMIT_NPROC would count every process of bench's user")
		case os.Getuid() == 0:
			out.Tasks = 0
			out.Notes = append(out.Notes, "tasks not limited: without a cgroup, RLIMIT_NPROC is all there is, and the kernel does not apply it to root's processes (a user namespace's root mapped to root included)")
		}
	}
	return out, nil
}

// launch prepares one plugin's limits: its cgroup, made now, and what its
// launcher applies (spec.Limits).
func (l Limits) launch(dir string) (*launchLimits, *limitState, error) {
	st := &limitState{l: l, dir: dir}
	ll := &launchLimits{NoFile: uint64(max(l.Files, 0)), FSize: uint64(max(l.Disk, 0))}
	if l.roots != nil {
		g, err := l.roots.create(l)
		if err != nil {
			return nil, nil, err
		}
		st.cg = g
		ll.Cgroups = g.procsFiles()
	} else if l.By == ByRlimit {
		ll.AS, ll.NProc = uint64(max(l.Memory, 0)), uint64(max(l.Tasks, 0))
	}
	return ll, st, nil
}

// limitState is one plugin's limits while it runs: its cgroup, the watch
// of its private directory, and the limit it was found to have hit.
type limitState struct {
	l     Limits
	dir   string
	cg    *cgroup
	watch *dirWatch

	mu       sync.Mutex
	released bool
	final    string // the cgroup's verdict, read before it was removed
}

// start starts the watch of the private directory once the launcher runs:
// over the limit, the plugin's cgroup is killed, the launcher asked to
// end (and to kill what it started), and c.OnLimit called.
func (st *limitState) start(c *Cmd) {
	if st == nil {
		return
	}
	st.watch = watchDir(st.dir, st.l, func() {
		c.KillAll()
		c.Stop()
		if c.OnLimit != nil {
			c.OnLimit()
		}
	})
}

// Limits returns the limits the plugin runs under.
func (c *Cmd) Limits() Limits {
	if c.lim == nil {
		return Limits{By: byNone}
	}
	return c.lim.l
}

// KillAll kills every process in the plugin's cgroup: the launcher, the
// plugin, and every descendant, whatever session or process group they
// made, and returns when they are gone (or after ten seconds). Without a
// cgroup it does nothing.
func (c *Cmd) KillAll() {
	if c.lim == nil {
		return
	}
	c.lim.mu.Lock()
	defer c.lim.mu.Unlock()
	if !c.lim.released {
		c.lim.cg.kill()
	}
}

// Release ends the plugin's limits once its launcher has been waited for:
// it stops the watch, reads what the cgroup says was hit, kills what is
// left in it and removes it. It is safe to call more than once.
func (c *Cmd) Release() {
	st := c.lim
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.released {
		return
	}
	st.released = true
	if st.watch != nil {
		st.watch.Stop()
	}
	st.final = st.cg.hit(st.l)
	st.cg.kill()
	st.cg.remove()
}

// LimitHit says which limit the plugin hit, for its error ("hit the
// memory limit (256MiB, by cgroup v1; raise with --limit-memory)"), or
// "". The cgroup's counters and the watch of the private directory are
// sure; else output, what the plugin wrote to stderr or answered in its
// error, and the signal that ended it, suggest an rlimit ("probably
// hit ...").
func (c *Cmd) LimitHit(output string) string {
	st := c.lim
	if st == nil {
		return ""
	}
	if st.watch != nil {
		if h := st.watch.Hit(); h != "" {
			return h
		}
	}
	st.mu.Lock()
	v := st.final
	if !st.released {
		v = st.cg.hit(st.l)
	}
	st.mu.Unlock()
	if v != "" {
		return v
	}
	sig := 0
	if ps := c.ProcessState; ps != nil && ps.ExitCode() > 128 {
		sig = ps.ExitCode() - 128
	}
	return st.l.inferHit(output, sig, st.cg != nil)
}
