// Package launch starts plugin executables as bench starts them: it checks
// the file and the socket directory, runs the process (internal/procrun)
// under the sandbox plan chosen (internal/sandbox) and hands it to a
// client.Client, which speaks the protocol. It is the host's half of
// internal/client: bench (host/run) and its conformance check
// (host/conform) import it; the conformance kit of plugin authors
// (sdk/sdktest), which never launches an executable, does not, so an
// author's tests link nothing of the sandbox.
package launch

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"time"

	plugin "github.com/hashicorp/go-plugin"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/procrun"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// Options tunes Launch.
type Options struct {
	// SHA256, when set, pins the executable's checksum: a mismatch refuses
	// to start it (go-plugin SecureConfig).
	SHA256 []byte
	// StartTimeout bounds the time to the handshake; default 10s.
	StartTimeout time.Duration
	// NoStream forces unary Step even when the plugin serves Steps; it
	// implies NoSocket.
	NoStream bool
	// NoSocket plays rounds on gRPC (Steps, or Step) even when the plugin
	// offers a step socket.
	NoSocket bool
	// Log, when set, receives go-plugin's own log at debug level.
	Log io.Writer
	// Sandbox, when set, runs the plugin under that plan (package
	// sandbox: confined as far as it says, its descendants reaped); nil
	// runs it directly, as a plain go-plugin host would.
	Sandbox *sandbox.Plan
}

// Plugin is a plugin process launched and spoken to over go-plugin: a
// client.Client (a client.Conn), and what the launcher knows of the
// process.
type Plugin struct {
	*client.Client
	proc *process
}

// Launch starts the plugin executable at path and completes the handshake.
// Errors name the path and quote the plugin's last stderr lines; started
// under a sandbox, they say what it lets the plugin do. opts.Sandbox is
// one Plan decided, which checked once for every plugin that TMPDIR
// leaves room for a plugin's socket.
func Launch(path string, opts Options) (*Plugin, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	// Not a regular file: the sandbox's launcher reads a script's #! line,
	// and opening a FIFO blocks until a writer comes.
	if !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("plugin %s: not an executable file (mode %v)", path, st.Mode())
	}
	var secure *plugin.SecureConfig
	if len(opts.SHA256) > 0 {
		secure = &plugin.SecureConfig{Checksum: opts.SHA256, Hash: sha256.New()}
	}
	p := &process{}
	c, err := client.Start(path, client.StartOptions{
		// The process runs in its own process group, with pipes bench
		// owns and closes (procrun); the runner checks the pinned
		// checksum, as SecureConfig would.
		Runner:       procrun.New(path, secure, opts.Sandbox, func(r *procrun.Runner) { p.r = r }),
		Process:      p,
		StartTimeout: opts.StartTimeout, NoStream: opts.NoStream, NoSocket: opts.NoSocket, Log: opts.Log,
	})
	if err != nil {
		return nil, err
	}
	return &Plugin{Client: c, proc: p}, nil
}

// Sandbox reports the sandbox layers the plugin runs under: 0 (off) for a
// plugin launched without a plan.
func (p *Plugin) Sandbox() sandbox.Layers { return p.proc.layers() }

// Limits reports the limits the plugin runs under: none for a plugin
// launched without a plan.
func (p *Plugin) Limits() sandbox.Limits {
	if p.proc.r == nil {
		return sandbox.Limits{}
	}
	return p.proc.r.Limits()
}

// process is a plugin's process as its client consults it
// (client.Process): r is set when the runner made it.
type process struct{ r *procrun.Runner }

func (p *process) layers() sandbox.Layers {
	if p.r == nil {
		return 0
	}
	return p.r.Layers()
}

// Clue implements client.Process: sandbox.LimitClue.
func (p *process) Clue(line string) bool { return sandbox.LimitClue(line) }

// LimitHit implements client.Process: the counters of the process's
// cgroup, the watch of its private directory, or else out.
func (p *process) LimitHit(out string) string {
	if p.r == nil {
		return ""
	}
	return p.r.LimitHit(out)
}

// StartHint implements client.Process: a confined plugin that does not
// start may have been refused something it needs.
func (p *process) StartHint() string {
	l := p.layers()
	if l == 0 {
		return ""
	}
	return fmt.Sprintf("it ran under sandbox %s, which lets it read only its own directory, the system's library and interpreter trees and its interpreter's prefix (a venv), "+
		"and write only its private directory, with none of bench's environment variables: --sandbox-read PATH lets it read more, --sandbox off runs it unconfined", l)
}

// KillGroup implements client.Process.
func (p *process) KillGroup() {
	if p.r != nil {
		p.r.KillGroup()
	}
}
