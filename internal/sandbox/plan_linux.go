package sandbox

// The plan: what a Config gives on this machine, and the command that
// runs one plugin under it.

import (
	"os/exec"
	"strings"
)

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
			return p, strictUnavailable("this machine cannot confine plugins fully; missing "+strings.Join(missing, "; "), Auto, Off)
		}
	}
	p.Layers, p.Missing = layers, missing
	return p, nil
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
