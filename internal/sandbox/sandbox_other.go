//go:build !linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Plan decides what c gives on this machine: outside Linux there is no
// confinement, so Auto runs plugins as Off does and Strict fails.
func (c Config) Plan() (Plan, error) {
	p := Plan{Level: c.Level}
	var err error
	if p.Read, err = c.readPaths(); err != nil {
		return p, err
	}
	if p.Limits, err = c.Limits.plan(0, false); err != nil {
		return p, err
	}
	missing := fmt.Sprintf("namespaces, landlock and seccomp (Linux only; this is %s)", runtime.GOOS)
	switch c.Level {
	case Strict:
		return p, strictUnavailable("this machine cannot confine plugins; missing "+missing, Off)
	case Auto:
		p.Missing = []string{missing}
	}
	return p, nil
}

// Cmd runs one plugin: directly, outside Linux.
type Cmd struct {
	*exec.Cmd
	// Layers is the confinement the plugin runs under: none.
	Layers Layers
	// OnLimit is never called: no limit is in force.
	OnLimit func()
}

// Command returns the command that runs the plugin at path with env.
func (p Plan) Command(path string, env []string, dir string, protocol func(string) bool) (*Cmd, error) {
	c := exec.Command(path)
	c.Env = env
	return &Cmd{Cmd: c}, nil
}

// Stop does nothing: there is no launcher.
func (c *Cmd) Stop() {}

// Launched reports false: there is no launcher.
func (c *Cmd) Launched() bool { return false }

// Contained reports false.
func (c *Cmd) Contained() bool { return false }

// landlockABI is 0: there is no Landlock outside Linux.
func landlockABI() int { return 0 }
