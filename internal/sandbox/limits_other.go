//go:build !linux

package sandbox

import "os"

// sigXFSZ is no signal outside Linux, where no rlimit is set.
const sigXFSZ = -1

func allocated(info os.FileInfo) int64 { return allocatedSize(info, 0, false) }

// cgroupRoots is Linux's.
type cgroupRoots struct{}

// plan: outside Linux there is no launcher, and no limit is in force.
func (l Limits) plan(Layers, bool) (Limits, error) {
	if _, err := ParseBy(l.By); err != nil {
		return Limits{}, err
	}
	return Limits{By: byNone, Notes: []string{"no limit is in force: bench limits plugins on Linux only"}}, nil
}

// Limits returns the limits the plugin runs under: none.
func (c *Cmd) Limits() Limits { return Limits{By: byNone} }

// KillAll does nothing: there is no cgroup.
func (c *Cmd) KillAll() {}

// Release does nothing.
func (c *Cmd) Release() {}

// LimitHit returns "": no limit is in force.
func (c *Cmd) LimitHit(string) string { return "" }
