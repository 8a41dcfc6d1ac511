package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupRoots is where bench makes each plugin's cgroup: under its own
// cgroup, in the cgroup v2 hierarchy when bench's cgroup there may have
// children with the memory and pids controllers, else in the v1 memory
// and pids hierarchies when bench may write them.
type cgroupRoots struct {
	version int      // 1 or 2
	dirs    []string // v2: [dir]; v1: [memory dir, pids dir]
}

// String names the mechanism: "cgroup v2" or "cgroup v1".
func (r *cgroupRoots) String() string { return fmt.Sprintf("cgroup v%d", r.version) }

// cgroupPrefix begins the name of every cgroup bench makes:
// regretbench-PID-N, PID being bench's.
const cgroupPrefix = "regretbench-"

var cgroupProbe struct {
	once  sync.Once
	roots *cgroupRoots
	why   string
}

// probeCgroups finds, once, where this process may make cgroups with the
// memory and pids controllers, or says why it may not. It also removes
// the cgroups of earlier benches that were killed before they could.
func probeCgroups() (*cgroupRoots, string) {
	p := &cgroupProbe
	p.once.Do(func() {
		mounts, err := cgroupMounts()
		if err != nil {
			p.why = err.Error()
			return
		}
		own, err := ownCgroups()
		if err != nil {
			p.why = err.Error()
			return
		}
		var whys []string
		if r, err := probeV2(mounts, own); err == nil {
			p.roots = r
		} else {
			whys = append(whys, "v2: "+err.Error())
			if r, err := probeV1(mounts, own); err == nil {
				p.roots = r
			} else {
				whys = append(whys, "v1: "+err.Error())
			}
		}
		if p.roots == nil {
			p.why = strings.Join(whys, "; ")
			return
		}
		for _, d := range p.roots.dirs {
			sweepCgroups(d)
		}
	})
	return p.roots, p.why
}

// cgroupMount is a mounted cgroup hierarchy.
type cgroupMount struct {
	dir, root string   // where it is mounted, and which of its cgroups is there
	v2        bool     // cgroup2
	opts      []string // v1: the controllers it holds, among other options
}

// cgroupMounts lists the cgroup hierarchies mounted in this mount
// namespace, from /proc/self/mountinfo.
func cgroupMounts() ([]cgroupMount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading the mounts: %w", err)
	}
	defer f.Close()
	var out []cgroupMount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || len(fields) < sep+3 {
			continue
		}
		fstype := fields[sep+1]
		if fstype != "cgroup" && fstype != "cgroup2" {
			continue
		}
		m := cgroupMount{root: unescapeMount(fields[3]), dir: unescapeMount(fields[4]), v2: fstype == "cgroup2"}
		if len(fields) > sep+3 {
			m.opts = strings.Split(fields[sep+3], ",")
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroups reads /proc/self/cgroup: this process's cgroup per
// controller ("memory", "pids"), and in v2 ("").
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("reading this process's cgroups: %w", err)
	}
	own := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own, nil
}

// dirOf is where this process's cgroup path lies under mount m, or "".
func dirOf(m cgroupMount, path string) string {
	rel, err := filepath.Rel(m.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.Join(m.dir, rel)
}

// probeV2 finds bench's cgroup in the v2 hierarchy and checks that its
// children may have the memory and pids controllers: enabled already
// (a delegated subtree bench was started in a leaf of), or enabled now,
// which the kernel allows only in a cgroup without processes of its own
// (or in the root).
func probeV2(mounts []cgroupMount, own map[string]string) (*cgroupRoots, error) {
	path, ok := own[""]
	if !ok {
		return nil, errors.New("this process is in no cgroup v2")
	}
	var dir string
	for _, m := range mounts {
		if m.v2 {
			if dir = dirOf(m, path); dir != "" {
				break
			}
		}
	}
	if dir == "" {
		return nil, errors.New("no cgroup2 hierarchy is mounted here")
	}
	ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil, err
	}
	have := strings.Fields(string(ctl))
	if !slices.Contains(have, "memory") || !slices.Contains(have, "pids") {
		return nil, fmt.Errorf("%s has controllers %q, not memory and pids", dir, strings.Join(have, " "))
	}
	sub, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return nil, err
	}
	on := strings.Fields(string(sub))
	if !slices.Contains(on, "memory") || !slices.Contains(on, "pids") {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
			return nil, fmt.Errorf("enabling memory and pids for the children of %s (bench's own cgroup must be a delegated one without processes but bench's children, or the root): %w", dir, err)
		}
	}
	if err := tryCgroup(dir); err != nil {
		return nil, err
	}
	return &cgroupRoots{version: 2, dirs: []string{dir}}, nil
}

// probeV1 finds bench's cgroups in the v1 memory and pids hierarchies
// and checks that it may make children there.
func probeV1(mounts []cgroupMount, own map[string]string) (*cgroupRoots, error) {
	var dirs []string
	for _, c := range []string{"memory", "pids"} {
		path, ok := own[c]
		if !ok {
			return nil, fmt.Errorf("no %s controller", c)
		}
		dir := ""
		for _, m := range mounts {
			if !m.v2 && slices.Contains(m.opts, c) {
				if dir = dirOf(m, path); dir != "" {
					break
				}
			}
		}
		if dir == "" {
			return nil, fmt.Errorf("the %s hierarchy is not mounted here", c)
		}
		if err := tryCgroup(dir); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	return &cgroupRoots{version: 1, dirs: dirs}, nil
}

// tryCgroup makes and removes a child of dir.
func tryCgroup(dir string) error {
	p := filepath.Join(dir, fmt.Sprintf("%s%d-probe", cgroupPrefix, os.Getpid()))
	if err := os.Mkdir(p, 0o755); err != nil {
		return fmt.Errorf("making a cgroup under %s: %w", dir, err)
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("removing the cgroup %s: %w", p, err)
	}
	return nil
}

// sweepCgroups removes what earlier benches left under dir: the cgroups
// of a bench that is gone (killed before it could remove them), with
// whatever still runs in them.
func sweepCgroups(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := unix.Kill(pid, 0); !errors.Is(err, unix.ESRCH) {
			continue // its bench still runs (or is another user's)
		}
		g := &cgroup{dirs: []string{filepath.Join(dir, e.Name())}}
		g.kill()
		g.remove()
	}
}

var cgroupSeq atomic.Int64

// cgroup is one plugin's cgroup: a directory per hierarchy.
type cgroup struct {
	version int
	dirs    []string // v2: [dir]; v1: [memory, pids]
}

// create makes a plugin's cgroup under r and sets l's memory and tasks.
func (r *cgroupRoots) create(l Limits) (*cgroup, error) {
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), cgroupSeq.Add(1))
	g := &cgroup{version: r.version}
	for _, d := range r.dirs {
		p := filepath.Join(d, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			g.remove()
			return nil, fmt.Errorf("limits: making the plugin's cgroup: %w", err)
		}
		g.dirs = append(g.dirs, p)
	}
	var writes [][2]string
	mem := strconv.FormatInt(l.Memory, 10)
	tasks := strconv.FormatInt(l.Tasks, 10)
	if r.version == 2 {
		if l.Memory > 0 {
			writes = append(writes, [2]string{"memory.max", mem}, [2]string{"memory.swap.max", "0"})
		}
		if l.Tasks > 0 {
			writes = append(writes, [2]string{"pids.max", tasks})
		}
	} else {
		if l.Memory > 0 {
			writes = append(writes, [2]string{"memory.limit_in_bytes", mem}, [2]string{"memory.memsw.limit_in_bytes", mem})
		}
		if l.Tasks > 0 {
			writes = append(writes, [2]string{"pids.max", tasks})
		}
	}
	for _, w := range writes {
		p := g.file(w[0])
		err := os.WriteFile(p, []byte(w[1]), 0)
		if err != nil && (w[0] == "memory.memsw.limit_in_bytes" || w[0] == "memory.swap.max") && errors.Is(err, os.ErrNotExist) {
			continue // no swap accounting: nothing to bound
		}
		if err != nil {
			g.remove()
			return nil, fmt.Errorf("limits: setting %s: %w", p, err)
		}
	}
	return g, nil
}

// file is the path of a control file of g: in v1, in the hierarchy of its
// controller (the name's prefix); cgroup.* in the first.
func (g *cgroup) file(name string) string {
	if g.version == 1 && strings.HasPrefix(name, "pids.") && len(g.dirs) > 1 {
		return filepath.Join(g.dirs[1], name)
	}
	return filepath.Join(g.dirs[0], name)
}

// procsFiles are the cgroup.procs files a process writes "0" to, to join
// g: one per hierarchy.
func (g *cgroup) procsFiles() []string {
	var out []string
	for _, d := range g.dirs {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// pids lists the processes in g (in any of its hierarchies).
func (g *cgroup) pids() []int {
	var out []int
	for _, d := range g.dirs {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 && !slices.Contains(out, pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// kill kills every process in g with SIGKILL, until none is left or
// ten seconds have passed: a process forking as fast as it can is
// killed with each child it makes. In v2 the kernel does it at once
// (cgroup.kill).
func (g *cgroup) kill() {
	if g == nil || len(g.dirs) == 0 {
		return
	}
	if g.version == 2 {
		if err := os.WriteFile(filepath.Join(g.dirs[0], "cgroup.kill"), []byte("1"), 0); err == nil {
			return
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		pids := g.pids()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// remove removes g's directories, once the processes in it are gone (a
// killed process leaves its cgroup only when it has died).
func (g *cgroup) remove() {
	if g == nil {
		return
	}
	for _, d := range g.dirs {
		for i := 0; i < 100; i++ {
			err := syscall.Rmdir(d)
			if err == nil || errors.Is(err, syscall.ENOENT) || !errors.Is(err, syscall.EBUSY) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// counter reads the value of key in a flat-keyed control file such as
// memory.oom_control ("oom_kill 1") or pids.events ("max 3").
func (g *cgroup) counter(file, key string) int64 {
	b, err := os.ReadFile(g.file(file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// hit says which of l's limits the kernel reports hit in g: the OOM
// killer ran in it (memory), or a fork failed at pids.max (tasks); "" if
// neither.
func (g *cgroup) hit(l Limits) string {
	if g == nil {
		return ""
	}
	var ooms int64
	if g.version == 2 {
		ooms = g.counter("memory.events", "oom_kill") + g.counter("memory.events", "oom")
	} else {
		ooms = g.counter("memory.oom_control", "oom_kill") + g.counter("memory.oom_control", "under_oom")
	}
	if l.Memory > 0 && ooms > 0 {
		return l.hit("memory", true, "")
	}
	if l.Tasks > 0 && g.counter("pids.events", "max") > 0 {
		return l.hit("tasks", true, "")
	}
	return ""
}
