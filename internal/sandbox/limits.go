package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits bound what one plugin may take: its launcher, the plugin and
// every process they start, together. A zero field is not limited.
//
// bench sets them for every plugin at every level, Off included
// (docs/threat-model.md, "Limits"): by a cgroup of the plugin's own where
// bench may make one (memory and tasks), else by rlimits the launcher
// sets before it starts the plugin; open files and the size of one file
// by rlimits always; the private directory's size and file count by a
// watcher in bench that kills the plugin once it holds more.
type Limits struct {
	// Memory is in bytes: the cgroup's memory (resident memory and page
	// cache, swap included), or without a cgroup the address space of
	// each process (RLIMIT_AS).
	Memory int64
	// Tasks counts processes and threads (the cgroup's pids.max; without a
	// cgroup RLIMIT_NPROC, where it counts only the plugin's own).
	Tasks int64
	// Files is the open file descriptors of each process (RLIMIT_NOFILE).
	Files int64
	// Disk is the bytes the private directory may hold; no file anywhere
	// may grow larger (RLIMIT_FSIZE).
	Disk int64
	// DiskFiles is the entries (files, directories, sockets) the private
	// directory may hold.
	DiskFiles int64

	// By is how Memory and Tasks are enforced. In a Config: what
	// --limit-by asks, "auto" (or ""), "cgroup" or "rlimit". In a Plan:
	// "cgroup v2", "cgroup v1", "rlimit", or "none".
	By string
	// Notes, in a Plan, say which limit is not in force here and why.
	Notes []string

	roots *cgroupRoots // in a Plan: where each plugin's cgroup is made
}

// DefaultLimits are the limits no honest plugin meets: 4 GiB of memory,
// 256 tasks, 1,024 open files, 1 GiB and 10,000 files in the private
// directory.
var DefaultLimits = Limits{Memory: 4 << 30, Tasks: 256, Files: 1024, Disk: 1 << 30, DiskFiles: 10000}

// The flags that raise each limit, which errors name.
const (
	FlagMemory    = "--limit-memory"
	FlagTasks     = "--limit-tasks"
	FlagFiles     = "--limit-files"
	FlagDisk      = "--limit-disk"
	FlagDiskFiles = "--limit-disk-files"
	FlagBy        = "--limit-by"
)

// Mechanisms a Config may ask for (--limit-by).
const (
	ByAuto   = "auto"
	ByCgroup = "cgroup"
	ByRlimit = "rlimit"
	byNone   = "none"
)

// minRlimitMemory is the least address space a plugin may be given
// without a cgroup: a Go program (the launcher, and every Go plugin)
// reserves about 1.2 GiB of address space as it starts, and fails
// ("failed to reserve page summary memory") under less; each thread a C
// library starts takes 8 MiB more for its stack. A small Go plugin with
// cgo, eight threads and two children failed under 2 GiB.
const minRlimitMemory = 3 << 30

// ParseSize parses a size in bytes: a number with an optional unit, B,
// KiB, MiB, GiB or TiB (K, M, G, T and KB, MB, GB, TB are read as the
// same powers of 1024). "0" means not limited.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || v < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit (B, KiB, MiB, GiB, TiB), e.g. 4GiB", s)
	}
	b := v * mult
	if b >= 1<<62 {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return int64(b), nil
}

// FormatSize writes n bytes in the largest binary unit that divides it:
// "4GiB", "256MiB", "1536KiB", "1000B".
func FormatSize(n int64) string {
	for _, u := range []struct {
		s    string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// ParseBy checks a --limit-by value.
func ParseBy(s string) (string, error) {
	switch v := strings.TrimSpace(strings.ToLower(s)); v {
	case "", ByAuto:
		return ByAuto, nil
	case ByCgroup, ByRlimit:
		return v, nil
	}
	return "", &ConfigError{Setting: SettingLimitBy, Value: s, Err: errors.New("want auto, cgroup or rlimit")}
}

// String says the limits in one line, as bench plugins shows them:
// "memory 4GiB, tasks 256, open files 1024, disk 1GiB in 10000 files
// (memory and tasks by cgroup v1)", then what is not limited and why.
func (l Limits) String() string {
	var parts []string
	add := func(name string, v int64, f func(int64) string) {
		if v > 0 {
			parts = append(parts, name+" "+f(v))
		} else {
			parts = append(parts, name+" not limited")
		}
	}
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	mem := "memory"
	if l.By == ByRlimit {
		mem = "memory (address space)"
	}
	add(mem, l.Memory, FormatSize)
	add("tasks", l.Tasks, itoa)
	add("open files", l.Files, itoa)
	add("disk", l.Disk, FormatSize)
	add("disk files", l.DiskFiles, itoa)
	s := strings.Join(parts, ", ")
	if l.By != "" {
		s += " (by " + l.By + ")"
	}
	if len(l.Notes) > 0 {
		s += "; " + strings.Join(l.Notes, "; ")
	}
	return s
}

// Record is the limits as a results file records them.
type Record struct {
	Memory    string `json:"memory,omitempty"`
	Tasks     int64  `json:"tasks,omitempty"`
	Files     int64  `json:"files,omitempty"`
	Disk      string `json:"disk,omitempty"`
	DiskFiles int64  `json:"disk_files,omitempty"`
	By        string `json:"by"`
	// Unlimited lists what was not limited, and why.
	Unlimited []string `json:"unlimited,omitempty"`
}

// Record returns l as a results file records it.
func (l Limits) Record() Record {
	r := Record{Tasks: l.Tasks, Files: l.Files, DiskFiles: l.DiskFiles, By: l.By, Unlimited: l.Notes}
	if l.Memory > 0 {
		r.Memory = FormatSize(l.Memory)
	}
	if l.Disk > 0 {
		r.Disk = FormatSize(l.Disk)
	}
	return r
}

// withDefaults fills the zero fields of a Config's limits from
// DefaultLimits: a Config that says nothing gets the defaults. A limit
// is lifted with a negative value.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def int64) int64 {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	l.Memory = pick(l.Memory, d.Memory)
	l.Tasks = pick(l.Tasks, d.Tasks)
	l.Files = pick(l.Files, d.Files)
	l.Disk = pick(l.Disk, d.Disk)
	l.DiskFiles = pick(l.DiskFiles, d.DiskFiles)
	return l
}

// hit describes a limit a plugin hit, for its error: "hit the memory
// limit (256MiB by cgroup v1; raise with --limit-memory)". sure is false
// for what bench inferred from the plugin's output, which is then quoted.
func (l Limits) hit(name string, sure bool, evidence string) string {
	var value, flag string
	switch name {
	case "memory":
		value, flag = FormatSize(l.Memory), FlagMemory
		if l.By == ByRlimit {
			value += " of address space"
		}
	case "tasks":
		value, flag = strconv.FormatInt(l.Tasks, 10)+" processes and threads", FlagTasks
	case "open-files":
		value, flag = strconv.FormatInt(l.Files, 10)+" per process", FlagFiles
	case "disk":
		value, flag = FormatSize(l.Disk)+" in its private directory, and per file", FlagDisk
	case "disk-files":
		value, flag = strconv.FormatInt(l.DiskFiles, 10)+" in its private directory", FlagDiskFiles
	}
	by := l.By
	switch name {
	case "open-files":
		by = "rlimit"
	case "disk", "disk-files":
		by = "bench's watch of the directory"
	}
	if !sure {
		return fmt.Sprintf("probably hit the %s limit (%s, by %s; %s; raise with %s)", name, value, by, evidence, flag)
	}
	return fmt.Sprintf("hit the %s limit (%s, by %s; raise with %s)", name, value, by, flag)
}

// inferHit guesses, from what the plugin wrote (its stderr, the error it
// returned) and how it ended, which rlimit it ran into; "" when nothing
// points to one. Only limits in force by rlimit are considered: a cgroup
// says for itself what was hit.
func (l Limits) inferHit(output string, signal int, cgroup bool) string {
	low := strings.ToLower(output)
	has := func(subs ...string) string {
		for _, s := range subs {
			if strings.Contains(low, s) {
				return s
			}
		}
		return ""
	}
	says := func(s string) string { return fmt.Sprintf("its output says %q", s) }
	if l.Files > 0 {
		if s := has("too many open files", "emfile"); s != "" {
			return l.hit("open-files", false, says(s))
		}
	}
	if l.Disk > 0 {
		if signal == sigXFSZ {
			return l.hit("disk", true, "")
		}
		if s := has("file too large", "efbig"); s != "" {
			return l.hit("disk", false, says(s))
		}
	}
	if cgroup {
		return ""
	}
	if l.Memory > 0 {
		if s := has("out of memory", "cannot allocate memory", "memoryerror", "failed to reserve", "bad_alloc", "enomem"); s != "" {
			return l.hit("memory", false, says(s))
		}
	}
	// A thread or process that could not be made: the tasks limit if it
	// is in force, else the address space (each thread's stack takes
	// some, 8MiB for a C library's thread).
	if s := has("failed to create new os thread", "pthread_create failed", "can't start new thread", "resource temporarily unavailable", "eagain"); s != "" {
		switch {
		case l.Tasks > 0:
			return l.hit("tasks", false, says(s))
		case l.Memory > 0:
			return l.hit("memory", false, says(s))
		}
	}
	return ""
}

// limitClues are what a process that ran into an rlimit writes: inferHit
// looks for them.
var limitClues = []string{
	"too many open files", "emfile", "file too large", "efbig",
	"out of memory", "cannot allocate memory", "memoryerror", "failed to reserve", "bad_alloc", "enomem",
	"failed to create new os thread", "pthread_create failed", "can't start new thread", "resource temporarily unavailable", "eagain",
}

// LimitClue reports whether a line a plugin wrote may say that it ran
// into a limit ("too many open files", "pthread_create failed"): a client
// keeps such lines apart, for a crash's dump may push them out of what
// it keeps of the plugin's output.
func LimitClue(line string) bool {
	low := strings.ToLower(line)
	for _, c := range limitClues {
		if strings.Contains(low, c) {
			return true
		}
	}
	return false
}

// dirWatch polls a plugin's private directory while the plugin runs and
// calls over, once, when it holds more bytes or entries than the limits
// allow. Each poll walks the directory; the next comes after
// watchInterval, or fifty times the walk's own time when that is longer,
// so that a directory of many files costs at most 2% of a core.
type dirWatch struct {
	stop chan struct{}
	once sync.Once
	mu   sync.Mutex
	hit  string // the limit it went over, as Limits.hit says it
}

// watchInterval is how often a private directory is measured.
const watchInterval = 100 * time.Millisecond

// watchDir starts watching dir under l; over is called (from the
// watcher's goroutine) when a limit is passed.
func watchDir(dir string, l Limits, over func()) *dirWatch {
	w := &dirWatch{stop: make(chan struct{})}
	if dir == "" || l.Disk <= 0 && l.DiskFiles <= 0 {
		return w
	}
	go func() {
		wait := watchInterval
		t := time.NewTimer(wait)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			t0 := time.Now()
			bytes, files := measureDir(dir, l)
			var hit string
			switch {
			case l.Disk > 0 && bytes > l.Disk:
				hit = l.hit("disk", true, "")
			case l.DiskFiles > 0 && files > l.DiskFiles:
				hit = l.hit("disk-files", true, "")
			}
			if hit != "" {
				w.mu.Lock()
				w.hit = hit
				w.mu.Unlock()
				over()
				return
			}
			t.Reset(max(watchInterval, 50*time.Since(t0)))
		}
	}()
	return w
}

// Stop ends the watch.
func (w *dirWatch) Stop() { w.once.Do(func() { close(w.stop) }) }

// Hit returns the limit the directory went over, or "".
func (w *dirWatch) Hit() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hit
}

// measureDir returns the bytes (allocated blocks) and the entries under
// dir, stopping early once both are known to be over l.
func measureDir(dir string, l Limits) (bytes, files int64) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone, or not readable: what can be read is counted
		}
		if p == dir {
			return nil
		}
		files++
		if info, err := d.Info(); err == nil {
			bytes += allocated(info)
		}
		if (l.Disk <= 0 || bytes > l.Disk) && (l.DiskFiles <= 0 || files > l.DiskFiles) {
			return filepath.SkipAll
		}
		return nil
	})
	return bytes, files
}

// allocatedSize is the size a file takes: its blocks where the system
// says them, else its length.
func allocatedSize(info os.FileInfo, blocks int64, ok bool) int64 {
	if ok {
		return max(blocks*512, 0)
	}
	return info.Size()
}
