package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// detected is what this machine allows, found once per process.
var detected struct {
	once    sync.Once
	exe     string // this program, which the launcher re-executes; "" if unknown
	layers  Layers
	missing []string
}

// detect finds the layers the machine allows by running the launcher in
// probe mode: with every layer the kernel reports, then, as long as it
// fails, without the layer that failed.
func detect() (string, Layers, []string) {
	d := &detected
	d.once.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			d.missing = []string{fmt.Sprintf("the launcher (cannot find this program to re-execute: %v)", err)}
			return
		}
		d.exe = exe
		want := All
		if v, err := llsys.LandlockGetABIVersion(); err != nil || v < 1 {
			want &^= Landlock
			d.missing = append(d.missing, fmt.Sprintf("landlock (not enabled in this kernel: %v)", errOr(err, "ABI < 1")))
		}
		if !seccomp.Supported() {
			want &^= Seccomp
			d.missing = append(d.missing, "seccomp (not supported by this kernel)")
		}
		for want != 0 {
			failed, why := probeLayers(exe, want)
			if failed == 0 {
				break
			}
			want &^= failed
			d.missing = append(d.missing, fmt.Sprintf("%s (%s)", failed, why))
		}
		d.layers = want
	})
	return d.exe, d.layers, d.missing
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// probeLayers runs the launcher in probe mode under layers and returns the
// layers to give up when it fails, with the reason; 0 when it succeeded.
func probeLayers(exe string, layers Layers) (Layers, string) {
	dir, err := os.MkdirTemp("", "regretbench-sandbox-probe-")
	if err != nil {
		return layers, err.Error()
	}
	defer os.RemoveAll(dir)
	c, err := command(exe, spec{Path: exe, Dir: dir, Layers: layers, Write: []string{dir}, Probe: true}, os.Environ())
	if err != nil {
		return layers, err.Error()
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		if layers&Namespaces != 0 {
			return Namespaces, namespaceErr(err)
		}
		return layers, err.Error()
	}
	c.Stop()
	if err := c.Wait(); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), "regretbench sandbox: "))
		if msg == "" {
			msg = err.Error()
		}
		for _, n := range layerNames {
			if layers&n.l != 0 && strings.HasPrefix(msg, n.name+": ") {
				return n.l, strings.TrimPrefix(msg, n.name+": ")
			}
		}
		return layers, msg
	}
	return 0, ""
}

// Plan decides what c gives on this machine. Strict fails, naming what is
// missing, unless every layer can be had.
func (c Config) Plan() (Plan, error) {
	p := Plan{Level: c.Level}
	var err error
	if p.Read, err = c.readPaths(); err != nil {
		return p, err
	}
	exe, layers, missing := detect()
	p.reaper = exe != ""
	planned := layers
	if c.Level == Off {
		planned = 0
	}
	if p.Limits, err = c.Limits.plan(planned, p.reaper); err != nil {
		return p, err
	}
	switch c.Level {
	case Off:
		return p, nil
	case Strict:
		if layers != All {
			return p, fmt.Errorf("sandbox strict: this machine cannot confine plugins fully; missing %s (--sandbox auto runs them under what it allows, --sandbox off unconfined)", strings.Join(missing, "; "))
		}
	}
	p.Layers, p.Missing = layers, missing
	return p, nil
}

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

// Command returns the command that runs the plugin at path under p. env is
// the environment bench would give the plugin; under any level but Off the
// plugin gets only the variables that protocol accepts, PATH, LANG, and
// HOME and TMPDIR set to dir, its private directory, which it may write.
func (p Plan) Command(path string, env []string, dir string, protocol func(key string) bool) (*Cmd, error) {
	exe, _, _ := detect()
	if !p.reaper || exe == "" {
		c := exec.Command(path)
		c.Env = env
		return &Cmd{Cmd: c}, nil
	}
	s := spec{Path: path, Dir: dir, Layers: p.Layers}
	if p.Level != Off {
		env = scrub(env, dir, protocol)
	}
	if p.Layers != 0 {
		s.Read = append(readPaths(path, lookupEnv(env, "PATH"), p.Layers&Namespaces != 0), p.Read...)
		s.Write = []string{dir, "/dev/null"}
	}
	ll, lim, err := p.Limits.launch(dir)
	if err != nil {
		return nil, err
	}
	s.Limits = ll
	c, err := command(exe, s, env)
	if err != nil {
		(&Cmd{lim: lim}).Release()
		return nil, err
	}
	c.lim = lim
	return c, nil
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
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
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

// scrub keeps of env only the protocol's variables, PATH and LANG, and
// sets HOME and TMPDIR to dir.
func scrub(env []string, dir string, protocol func(string) bool) []string {
	var out []string
	hasPath := false
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == "PATH":
			hasPath = true
			out = append(out, kv)
		case k == "LANG", protocol != nil && protocol(k):
			out = append(out, kv)
		}
	}
	if !hasPath {
		out = append(out, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(out, "HOME="+dir, "TMPDIR="+dir)
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// systemRead are the system's library and interpreter trees, and the few
// files a dynamic loader or an interpreter reads at start.
var systemRead = []string{
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives",
	"/sys/devices/system/cpu", "/dev/urandom", "/dev/random", "/dev/zero",
}

// readPaths lists what the plugin at path may read and execute: the
// system's trees, its own directory (as named and as resolved), the
// prefix of the interpreter its #! line names (a venv, say), and /proc
// when it is the PID namespace's own.
func readPaths(path, envPath string, freshProc bool) []string {
	out := append([]string(nil), systemRead...)
	if m, _ := filepath.Glob("/etc/python3*"); len(m) > 0 {
		out = append(out, m...)
	}
	if freshProc {
		out = append(out, "/proc")
	}
	out = append(out, filepath.Dir(path))
	if real, err := filepath.EvalSymlinks(path); err == nil {
		out = append(out, filepath.Dir(real))
	}
	if interp := interpreter(path, envPath); interp != "" {
		out = append(out, prefixes(interp)...)
	}
	return dedupe(out)
}

// interpreter returns the program a script's #! line runs, looked up in
// PATH when the line is "#!/usr/bin/env NAME"; "" for a binary.
func interpreter(path, envPath string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" || !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	interp := fields[0]
	if filepath.Base(interp) == "env" {
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			for _, dir := range filepath.SplitList(envPath) {
				if p := filepath.Join(dir, f); isExecutable(p) {
					return p
				}
			}
			return ""
		}
	}
	return interp
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// prefixes returns the installation prefixes of an interpreter, as named
// and as resolved: the directory above its bin/ (a venv, a pyenv version),
// never the root itself.
func prefixes(interp string) []string {
	var out []string
	add := func(p string) {
		dir := filepath.Dir(p)
		if filepath.Base(dir) == "bin" {
			dir = filepath.Dir(dir)
		}
		if dir != "/" && dir != "." {
			out = append(out, dir)
		}
	}
	add(interp)
	if real, err := filepath.EvalSymlinks(interp); err == nil {
		add(real)
	}
	return out
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range s {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// namespaceErr says why new namespaces could not be made, in the terms of
// the setting to look at.
func namespaceErr(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Sprintf("no user namespace may be made here, user.max_user_namespaces is reached or 0: %v", err)
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return fmt.Sprintf("unprivileged user namespaces are not allowed here (kernel.unprivileged_userns_clone, or AppArmor's kernel.apparmor_restrict_unprivileged_userns): %v", err)
	}
	return err.Error()
}
