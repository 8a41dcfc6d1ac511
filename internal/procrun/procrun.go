// Package procrun starts a plugin executable for go-plugin in a process
// group of its own, with pipes the host owns (Runner). It is the host's
// machinery, used by the client in package sdk (Launch); it lives under
// sdk/ so that a copy of sdk/ alone (WRITING-PLUGINS.md) still builds.
package procrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/wire"
)

// How long shutting a plugin down may take before bench stops waiting.
const (
	// KillGrace is how long Close waits for go-plugin's graceful shutdown
	// (the controller's Shutdown RPC, then up to 2 s for the process to
	// exit) before it kills the process group itself. A frozen plugin
	// (SIGSTOP, a debugger) never answers Shutdown.
	KillGrace = 3 * time.Second
	// pipeGrace is how long the plugin's stdout and stderr may stay open
	// after the plugin process has exited and its process group was
	// killed: a process that left the group (setsid) and inherited the
	// pipes keeps them open for as long as it lives.
	pipeGrace = time.Second
	// AbandonWait is how long Close waits, after the kill, for go-plugin's
	// goroutines to see the process gone before it gives up on them.
	AbandonWait = 5 * time.Second
	// maxStdoutLine bounds the lines go-plugin reads from a plugin's
	// stdout: its reader stops for good at a line of 64 KiB, after which a
	// plugin writing to stdout blocks. Longer lines are split.
	maxStdoutLine = 16 << 10
)

// Runner runs a plugin executable for go-plugin (ClientConfig.RunnerFunc)
// in a process group of its own, with pipes bench owns:
//
//   - when the plugin process exits, or Kill is called, the whole group is
//     killed with SIGKILL, so helpers the plugin started (and a wrapper
//     script's background jobs) end with it;
//   - its stdout and stderr are closed pipeGrace after the process exited,
//     even if a process that escaped the group still holds them, so that
//     go-plugin, which waits for both before it reports the exit, never
//     waits for a stranger;
//   - its stdout is read with lines split at maxStdoutLine, so that
//     go-plugin never stops draining it;
//   - its stdin is /dev/null: in a background process group a read from
//     the terminal would stop it.
type Runner struct {
	path   string
	cmd    *exec.Cmd
	sb     *sandbox.Cmd // the launcher's command; cmd is sb.Cmd
	dir    string       // go-plugin's socket directory, removed when the process ends
	stdout *pipeReader
	stderr *pipeReader

	mu      sync.Mutex
	reaped  bool          // the process was waited for: its pid may be reused
	exited  chan struct{} // closed once reaped
	waitErr error
}

var _ runner.Runner = (*Runner)(nil)

// New returns the RunnerFunc that starts the plugin at path, checking its
// checksum against sc first when sc is set. go-plugin's socket directory
// (TMPDIR/plugin-dirN, made by bench) is the plugin's private directory
// and its TMPDIR, at every sandbox level, and is removed once the
// process is gone, however it ended. With a sandbox plan sb, the plugin
// runs under it (package sandbox); with nil, directly.
func New(path string, sc *plugin.SecureConfig, sb *sandbox.Plan, made func(*Runner)) func(hclog.Logger, *exec.Cmd, string) (runner.Runner, error) {
	return func(_ hclog.Logger, tmpl *exec.Cmd, dir string) (runner.Runner, error) {
		sweepTMPDIR()      // what a SIGKILLed bench left (sweep.go)
		_ = MarkOwner(dir) // unmarked, it is only never swept
		if sc != nil {
			ok, err := sc.Check(path)
			if err != nil || !ok {
				removeDir(dir)
				if err != nil {
					return nil, fmt.Errorf("error verifying checksum: %w", err)
				}
				return nil, plugin.ErrChecksumsDoNotMatch
			}
		}
		// Not go-plugin's PLUGIN_UNIX_SOCKET_DIR, which it adds for a
		// RunnerFunc: a plugin sees what it saw with a Cmd, but for
		// TMPDIR, which is dir at every sandbox level, off included:
		// what the plugin leaves in its TMPDIR (go-plugin's socket, a
		// Python plugin's socket directory, its temporary files), were it
		// killed, goes with dir, not into the machine's temp directory.
		env := privateTMPDIR(tmpl.Env, dir)
		r := &Runner{path: path, dir: dir, exited: make(chan struct{})}
		if sb != nil {
			c, err := sb.Command(path, env, dir, isProtocolVar)
			if err != nil {
				removeDir(dir)
				return nil, err
			}
			r.sb, r.cmd = c, c.Cmd
			c.OnLimit = r.KillGroup
		} else {
			r.cmd = exec.Command(path)
			r.cmd.Env = env
		}
		setProcessGroup(r.cmd)
		made(r)
		return r, nil
	}
}

// Start implements runner.Runner.
func (r *Runner) Start(context.Context) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	r.cmd.Stdout, r.cmd.Stderr = outW, errW
	err = startTracked(func() (int, error) {
		var err error
		if r.sb != nil {
			err = r.sb.Start()
		} else {
			err = r.cmd.Start()
		}
		if err != nil {
			return 0, err
		}
		return r.cmd.Process.Pid, nil
	})
	outW.Close() // the child holds its own copies
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		removeDir(r.dir)
		r.reaped = true
		close(r.exited)
		return err
	}
	r.stdout = &pipeReader{f: outR, split: maxStdoutLine}
	r.stderr = &pipeReader{f: errR}
	go r.wait()
	return nil
}

// wait reaps the process. Before it does, while the exited process still
// holds its pid and so its group id, it kills what is left of the group;
// after, it kills and reaps the orphans a launcher killed by its plugin
// left to bench (sweepOrphans).
func (r *Runner) wait() {
	pid := r.cmd.Process.Pid
	waited := waitExit(pid)
	r.mu.Lock()
	if waited {
		killGroup(r.cmd)
	}
	r.waitErr = reapTracked(pid, r.cmd.Wait)
	r.reaped = true
	r.mu.Unlock()
	if r.sb != nil {
		r.sb.Stop()
		// What the cgroup says was hit is read, and what is left in it
		// killed, before anyone is told that the process exited.
		r.sb.Release()
	}
	sweepOrphans()
	// The private directory and its owner marker go before anyone is told
	// that the process exited: a bench that exits right after its plugins
	// leaves neither behind.
	removeDir(r.dir)
	close(r.exited)
	time.AfterFunc(pipeGrace, func() {
		r.stdout.Close()
		r.stderr.Close()
	})
}

// KillGroup kills the plugin's process group, unless the process was reaped
// already (its group was killed then). A plugin under the sandbox's
// launcher is ended by it, with every descendant, even those that left
// the group: at once in a PID namespace (the kernel kills what its init
// leaves), else by asking the launcher (Stop), whose group is killed
// only if it has not exited within KillGrace.
func (r *Runner) KillGroup() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reaped {
		return
	}
	if r.sb == nil || r.sb.Contained() {
		killGroup(r.cmd)
		return
	}
	r.sb.Stop()
	go func() {
		select {
		case <-r.exited:
		case <-time.After(KillGrace):
			r.mu.Lock()
			if !r.reaped {
				killGroup(r.cmd)
			}
			r.mu.Unlock()
		}
	}()
}

// Layers reports the sandbox layers the plugin runs under.
func (r *Runner) Layers() sandbox.Layers {
	if r.sb == nil {
		return 0
	}
	return r.sb.Layers
}

// Limits reports the limits the plugin runs under (package sandbox); a
// plugin started without a plan runs under none.
func (r *Runner) Limits() sandbox.Limits {
	if r.sb == nil {
		return sandbox.Limits{}
	}
	return r.sb.Limits()
}

// LimitHit says which limit the plugin hit, or "": output is what it
// wrote to stderr and any error it answered (sandbox.Cmd.LimitHit).
func (r *Runner) LimitHit(output string) string {
	if r.sb == nil {
		return ""
	}
	return r.sb.LimitHit(output)
}

// privateTMPDIR returns env without go-plugin's PLUGIN_UNIX_SOCKET_DIR
// and with TMPDIR set to dir.
func privateTMPDIR(env []string, dir string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, plugin.EnvUnixSocketDir+"=") && !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir)
}

// isProtocolVar reports whether the environment variable key is one that
// go-plugin's handshake needs: its PLUGIN_* variables and the magic
// cookie. A sandboxed plugin gets these and no other of bench's.
func isProtocolVar(key string) bool {
	return strings.HasPrefix(key, "PLUGIN_") || key == wire.Handshake.MagicCookieKey
}

// Wait implements runner.Runner.
func (r *Runner) Wait(context.Context) error {
	<-r.exited
	return r.waitErr
}

// Kill implements runner.Runner.
func (r *Runner) Kill(context.Context) error {
	r.KillGroup()
	return nil
}

// Stdout, Stderr, Name, Diagnose, PluginToHost and HostToPlugin implement
// runner.Runner.
func (r *Runner) Stdout() io.ReadCloser { return r.stdout }
func (r *Runner) Stderr() io.ReadCloser { return r.stderr }
func (r *Runner) Name() string          { return r.path }
func (r *Runner) Diagnose(context.Context) string {
	return ""
}

// ID implements runner.Runner: the pid, "" before the process started.
func (r *Runner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *Runner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *Runner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// pipeReader reads a plugin's stdout or stderr. Once closed, a read returns
// io.EOF, a blocked one included. With split > 0 it ends every split bytes
// without a newline with one.
type pipeReader struct {
	f     *os.File
	split int
	run   int // bytes since the last newline
	once  sync.Once
}

func (p *pipeReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if p.split > 0 {
		if p.run >= p.split {
			b[0] = '\n'
			p.run = 0
			return 1, nil
		}
		b = b[:min(len(b), p.split-p.run)]
	}
	n, err := p.f.Read(b)
	if p.split > 0 {
		if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
			p.run = n - 1 - i
		} else {
			p.run += n
		}
	}
	if err != nil && errors.Is(err, os.ErrClosed) {
		err = io.EOF
	}
	return n, err
}

func (p *pipeReader) Close() error {
	p.once.Do(func() { p.f.Close() })
	return nil
}
