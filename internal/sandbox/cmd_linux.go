package sandbox

// Cmd: the launcher's command as bench holds it, with the two
// descriptors it passes (the lifeline and the spec).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Cmd runs one plugin under a Plan: through the launcher, or directly
// where there is none.
type Cmd struct {
	*exec.Cmd
	// Layers is the confinement the plugin runs under.
	Layers Layers
	lifeR  *os.File // the launcher's end of the lifeline; closed once started
	lifeW  *os.File // bench's end: closing it asks the launcher to end
	spec   *os.File // the launcher's spec (specFD); closed once started
	stop   sync.Once
	// OnLimit, when set before Start, is called when the plugin is killed
	// for going over a limit that bench watches (limits_linux.go).
	OnLimit func()
	lim     *limitState
}

// command builds the launcher's command for s.
func command(exe string, s spec, env []string) (*Cmd, error) {
	js, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("regretbench-sandbox-spec", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the launcher's spec: %w", err)
	}
	specF := os.NewFile(uintptr(fd), "spec")
	if _, err := specF.Write(js); err != nil {
		specF.Close()
		return nil, fmt.Errorf("sandbox: the launcher's spec: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		specF.Close()
		return nil, fmt.Errorf("sandbox: lifeline pipe: %w", err)
	}
	c := exec.Command(exe)
	c.Args[0] = launcherName
	c.Env = env
	c.ExtraFiles = []*os.File{r, specF} // fd 3: lifelineFD, fd 4: specFD
	attr := &syscall.SysProcAttr{Setpgid: true}
	if s.Layers&Namespaces != 0 {
		cloneNamespaces(attr)
	}
	c.SysProcAttr = attr
	return &Cmd{Cmd: c, Layers: s.Layers, lifeR: r, lifeW: w, spec: specF}, nil
}

// Start starts the command; the launcher keeps the only copy of its end
// of the lifeline.
func (c *Cmd) Start() error {
	err := c.Cmd.Start()
	if c.lifeR != nil {
		c.lifeR.Close()
	}
	if c.spec != nil {
		c.spec.Close()
	}
	if err != nil {
		c.Stop()
		c.Release()
	} else {
		c.lim.start(c)
	}
	return err
}

// Stop asks the launcher to kill the plugin and every descendant of it,
// and to exit. It returns at once.
func (c *Cmd) Stop() {
	if c.lifeW != nil {
		c.stop.Do(func() { c.lifeW.Close() })
	}
}

// Launched reports whether the plugin runs under the launcher.
func (c *Cmd) Launched() bool { return c.lifeW != nil }

// Contained reports whether a SIGKILL of the launcher's process group ends
// the plugin and all its descendants: true in a PID namespace, whose init
// the launcher is. Otherwise only the launcher can find them all (Stop).
func (c *Cmd) Contained() bool { return c.Layers&Namespaces != 0 }
