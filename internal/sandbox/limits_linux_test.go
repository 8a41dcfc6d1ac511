package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLimitsCgroupLifecycle starts a plugin (a shell script that leaves a
// child behind) under the strict plan by cgroup: the launcher and all it
// starts are in the plugin's cgroup, with the memory and tasks limits set;
// KillAll empties it; Release removes it.
func TestLimitsCgroupLifecycle(t *testing.T) {
	p := fullPlan(t)
	l, err := Limits{By: ByCgroup, Memory: 256 << 20, Tasks: 64}.plan(p.Layers, true)
	if err != nil {
		t.Skipf("no cgroup here: %v", err)
	}
	p.Limits = l
	dir := t.TempDir()
	script := filepath.Join(dir, "plugin")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 300 &\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	priv := t.TempDir()
	c, err := p.Command(script, nil, priv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		c.Stop()
		if !waited {
			waitBounded(t, c, "the launcher, stopped")
		}
		c.Release()
	}()
	g := c.lim.cg
	deadline := time.Now().Add(30 * time.Second)
	for len(g.pids()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for the launcher, the script and its child in the cgroup; it holds %v", g.pids())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !contains(g.pids(), c.Process.Pid) {
		t.Errorf("the launcher %d is not in its cgroup %v", c.Process.Pid, g.pids())
	}
	want := map[string]string{"pids.max": "64"}
	if g.version == 1 {
		want["memory.limit_in_bytes"] = strconv.Itoa(256 << 20)
	} else {
		want["memory.max"] = strconv.Itoa(256 << 20)
	}
	for f, v := range want {
		b, err := os.ReadFile(g.file(f))
		if err != nil || strings.TrimSpace(string(b)) != v {
			t.Errorf("%s = %q (%v), want %s", g.file(f), b, err, v)
		}
	}
	c.KillAll()
	if left := g.pids(); len(left) > 0 {
		t.Errorf("KillAll left %v in the cgroup", left)
	}
	waitBounded(t, c, "the launcher, its cgroup killed")
	waited = true
	c.Release()
	for _, d := range g.dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("cgroup %s not removed: %v", d, err)
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// BenchmarkLimitsCgroup measures what limits add to a plugin's start and
// end by cgroup: making its cgroup with the limits set, and removing it.
//
//	go test -run '^$' -bench LimitsCgroup ./internal/sandbox/
func BenchmarkLimitsCgroup(b *testing.B) {
	l, err := DefaultLimits.plan(All, true)
	if err != nil || l.roots == nil {
		b.Skipf("no cgroup here: %v", err)
	}
	var made time.Duration
	for b.Loop() {
		t0 := time.Now()
		g, err := l.roots.create(l)
		if err != nil {
			b.Fatal(err)
		}
		made += time.Since(t0)
		g.remove()
	}
	// Made before the plugin starts; removed after it ended.
	b.ReportMetric(float64(made.Microseconds())/float64(b.N), "µs-create")
}

// BenchmarkLimitsJoin measures what the launcher's joining its cgroup
// costs: the write of a process into cgroup.procs (here a sleeping
// child's, moved into a new cgroup per iteration, timed alone).
func BenchmarkLimitsJoin(b *testing.B) {
	l, err := DefaultLimits.plan(All, true)
	if err != nil || l.roots == nil {
		b.Skipf("no cgroup here: %v", err)
	}
	child := exec.Command("sleep", "600")
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	pid := []byte(strconv.Itoa(child.Process.Pid))
	var took time.Duration
	for b.Loop() {
		b.StopTimer()
		g, err := l.roots.create(l)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		for _, f := range g.procsFiles() {
			if err := os.WriteFile(f, pid, 0); err != nil {
				b.Fatal(err)
			}
		}
		took += time.Since(t0)
		b.StopTimer()
		for _, d := range l.roots.dirs {
			os.WriteFile(filepath.Join(d, "cgroup.procs"), pid, 0)
		}
		g.remove()
		b.StartTimer()
	}
	b.ReportMetric(float64(took.Microseconds())/float64(b.N), "µs-join")
}

// TestLimitsSweep: the cgroups of a bench that is gone (killed before it
// removed them) are removed by the next; those of a live one are not.
func TestLimitsSweep(t *testing.T) {
	l, err := DefaultLimits.plan(All, true)
	if err != nil || l.roots == nil {
		t.Skipf("no cgroup here: %v", err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	dir := l.roots.dirs[0]
	gone := filepath.Join(dir, fmt.Sprintf("%s%d-1", cgroupPrefix, dead.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf("%s%d-1", cgroupPrefix, os.Getppid()))
	for _, d := range []string{gone, live} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Remove(live)
	defer os.Remove(gone)
	sweepCgroups(dir)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s, of a bench that is gone, was not removed: %v", gone, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("%s, of a live process, was removed: %v", live, err)
	}
}

// TestLimitsProbeV2 probes a cgroup v2 hierarchy mocked in a directory:
// bench's cgroup without the memory and pids controllers is refused,
// saying so; with them enabled for its children it is chosen, and a
// plugin's cgroup gets memory.max, no swap and pids.max.
func TestLimitsProbeV2(t *testing.T) {
	root := t.TempDir()
	own := map[string]string{"": "/bench.scope"}
	dir := filepath.Join(root, "bench.scope")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, v string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mounts := []cgroupMount{{dir: root, root: "/", v2: true}}
	write("cgroup.controllers", "cpu io\n")
	write("cgroup.subtree_control", "\n")
	if _, err := probeV2(mounts, own); err == nil || !strings.Contains(err.Error(), "not memory and pids") {
		t.Errorf("without the controllers: %v, want a refusal naming them", err)
	}
	write("cgroup.controllers", "cpu io memory pids\n")
	write("cgroup.subtree_control", "memory pids\n")
	r, err := probeV2(mounts, own)
	if err != nil {
		t.Fatal(err)
	}
	if r.String() != "cgroup v2" || r.dirs[0] != dir {
		t.Errorf("probe: %s in %v, want cgroup v2 in %s", r, r.dirs, dir)
	}
	g, err := r.create(Limits{Memory: 256 << 20, Tasks: 64})
	if err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{"memory.max": strconv.Itoa(256 << 20), "memory.swap.max": "0", "pids.max": "64"} {
		if b, err := os.ReadFile(g.file(f)); err != nil || string(b) != v {
			t.Errorf("%s = %q (%v), want %s", f, b, err, v)
		}
	}
	if got := g.procsFiles(); len(got) != 1 || filepath.Dir(got[0]) != g.dirs[0] || !strings.HasPrefix(filepath.Base(g.dirs[0]), cgroupPrefix) {
		t.Errorf("procs files %v", got)
	}
	// Outside the mount: no hierarchy.
	if _, err := probeV2([]cgroupMount{{dir: root, root: "/elsewhere", v2: true}}, own); err == nil {
		t.Error("bench's cgroup outside every mount: no error")
	}
}
