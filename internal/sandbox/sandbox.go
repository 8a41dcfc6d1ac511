// Package sandbox runs plugin executables confined, so that bench can be
// trusted to judge code written by strangers (docs/threat-model.md).
//
// A plugin is not started directly. bench re-executes itself as a small
// launcher (this package's init recognises it), which confines a thread
// of its own and then starts the plugin from that thread, so that the
// plugin inherits the confinement:
//
//   - Namespaces: new user, mount, PID, network, IPC and UTS namespaces,
//     with a fresh /proc that shows only the plugin's own processes. The
//     launcher is the PID namespace's init: when it exits, the kernel kills
//     everything left in the namespace.
//   - Landlock: the plugin may read and execute its own directory, the
//     system's library and interpreter trees and what its interpreter's
//     prefix needs; it may write only its private temporary directory,
//     which is also its HOME and TMPDIR. TCP bind and connect are denied,
//     and so are signals and abstract unix sockets that leave the domain.
//   - seccomp: no sockets but unix stream sockets, no connect(2), and no
//     ptrace, process_vm_readv/writev, bpf, mount, keyctl, kexec, module
//     loading, io_uring, new namespaces or the like; no file lock (flock,
//     fcntl's POSIX and OFD locks and leases), inotify or dnotify, System V
//     IPC or POSIX message queue, through which two policies' plugins
//     could talk; system calls of another architecture (the 32-bit ABIs)
//     fail.
//   - The environment is scrubbed to the protocol's variables plus PATH,
//     LANG, HOME and TMPDIR.
//
// The launcher is bench's executable, with every embedded scenario, and
// under strict it is PID 1 of the plugin's /proc. Nothing of it may be
// readable from inside, and of the three ways to have that (a separate,
// small launcher executable; hiding it from the plugin's /proc; making it
// non-dumpable) this package takes the last: it costs one prctl(2), keeps
// bench one executable, and is the kernel's own rule. The launcher makes
// itself non-dumpable (PR_SET_DUMPABLE 0) before it starts the plugin, so
// that its /proc/PID/{mem,maps,environ,exe,root,cwd,fd,...} and ptrace
// need CAP_SYS_PTRACE in its user namespace, which the plugin, with every
// capability dropped, lacks. /proc/PID/cmdline stays readable, so the
// launcher's argv is its name alone: its spec (paths) comes on a memfd.
// The confined thread is not the launcher's thread-group leader, and ends
// once the plugin is started: the launcher is outside the plugin's
// Landlock domain, whose signal scope (Landlock ABI 6) then forbids the
// plugin to signal, stop or kill it.
//
// Level chooses how much of that applies: Strict all of it or nothing
// (Plan fails naming what the machine lacks), Auto as much as the machine
// allows, Off none. Plan.OpenChannels names what a plan leaves open
// between two policies' plugins. At every level, on Linux, the launcher
// is a child subreaper: a descendant of the plugin, even one that started
// a session of its own (setsid), is reparented to it, and killed when the
// plugin's session ends or bench dies. Where a plugin can reach its
// launcher (--sandbox off; the fallback without Landlock's signal scope),
// bench itself, a child subreaper too, ends what a killed, stopped or
// traced launcher leaves (package procrun).
//
// # Files
//
// One file per layer, so that each can be reviewed alone; confine
// (confine_linux.go) applies them in one order, written once, and says
// why that order:
//
//   - detect_linux.go: which layers this machine allows (the probe);
//   - plan_linux.go: Config.Plan and Plan.Command; cmd_linux.go: Cmd;
//   - launcher_linux.go: the launcher's main, its spec and its exit;
//   - confine_linux.go: the order of the layers;
//   - limits.go, limits_linux.go, cgroup_linux.go: the limits;
//   - namespaces_linux.go, mounts_linux.go: the namespaces and /proc;
//   - landlock_linux.go, seccomp_linux.go, caps_linux.go: the layers
//     that confine the plugin's thread;
//   - reaper_linux.go: the child subreaper and the final kill;
//   - env_linux.go: the environment's scrubbing; interp_linux.go: the
//     paths a plugin may read, its #! interpreter's included;
//   - errors.go: ConfigError, which names the setting at fault and no
//     flag (a command maps Setting to its flag).
package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Level is how strictly plugins are confined.
type Level int

const (
	// Auto confines a plugin as far as the machine allows.
	Auto Level = iota
	// Strict confines a plugin with every layer, or refuses to start it.
	Strict
	// Off runs a plugin unconfined; only its descendants are still reaped.
	Off
)

// Levels lists the level names, for help texts.
const Levels = "auto, strict or off"

// ParseLevel parses "auto", "strict" or "off".
func ParseLevel(s string) (Level, error) {
	switch strings.TrimSpace(strings.ToLower(s)) {
	case "auto", "":
		return Auto, nil
	case "strict":
		return Strict, nil
	case "off":
		return Off, nil
	}
	return Auto, fmt.Errorf("sandbox level %q: want %s", s, Levels)
}

// Set parses s as ParseLevel does and sets l: with Type and String, a
// *Level is a command-line flag's value (pflag.Value, flag.Value), so
// that a command parses the level once, where it reads the flag, and
// carries the Level from there on.
func (l *Level) Set(s string) error {
	v, err := ParseLevel(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Type names a Level flag's values in help texts.
func (l *Level) Type() string { return "level" }

// UnmarshalText parses a level from a configuration file, as Set does.
func (l *Level) UnmarshalText(b []byte) error { return l.Set(string(b)) }

// MarshalText writes l's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// String names the level: "auto", "strict" or "off".
func (l Level) String() string {
	switch l {
	case Strict:
		return "strict"
	case Off:
		return "off"
	}
	return "auto"
}

// Layers is a set of confinement layers.
type Layers uint8

// The layers.
const (
	Namespaces Layers = 1 << iota
	Landlock
	Seccomp

	// All is every layer: what Strict means.
	All = Namespaces | Landlock | Seccomp
)

var layerNames = []struct {
	l    Layers
	name string
}{{Namespaces, "namespaces"}, {Landlock, "landlock"}, {Seccomp, "seccomp"}}

// String names the layers: "strict" for all of them, "off" for none, else
// the layers joined by "+", e.g. "landlock+seccomp". Results files record
// it as the sandbox a policy ran under.
func (l Layers) String() string {
	switch l {
	case All:
		return "strict"
	case 0:
		return "off"
	}
	var names []string
	for _, n := range layerNames {
		if l&n.l != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, "+")
}

// Config is what a command asks of the sandbox.
type Config struct {
	Level Level
	// Read lists more paths (files or directories) a confined plugin may
	// read and execute, beyond its own directory and the system's trees:
	// --sandbox-read.
	Read []string
	// Limits are what each plugin may take; zero fields get
	// DefaultLimits (package doc, limits.go).
	Limits Limits
}

// Plan is what a Config gives on this machine: the layers that will
// confine every plugin, and what Auto had to leave out.
type Plan struct {
	Level  Level
	Layers Layers
	// Missing says, per layer that Auto left out, why: "namespaces (clone:
	// operation not permitted)".
	Missing []string
	// Read is Config.Read, made absolute.
	Read []string
	// Limits are the limits in force for every plugin, and how.
	Limits Limits
	// reaper: plugins are started through the launcher, which reaps their
	// descendants (Linux only).
	reaper bool
}

// String is what a command says of the plan in one line: "strict",
// "off", or the layers that apply and what is missing.
func (p Plan) String() string {
	s := p.Layers.String()
	if len(p.Missing) > 0 {
		s += " (missing: " + strings.Join(p.Missing, "; ") + ")"
	}
	return s
}

// Warning is the one line a command prints on stderr when Auto left
// something out, or "" when nothing is missing.
func (p Plan) Warning() string {
	if p.Level != Auto || len(p.Missing) == 0 {
		return ""
	}
	if p.Layers == 0 {
		return fmt.Sprintf("warning: sandbox auto: plugins run unconfined; missing %s", strings.Join(p.Missing, "; "))
	}
	return fmt.Sprintf("warning: sandbox auto: plugins run under %s only; missing %s", p.Layers, strings.Join(p.Missing, "; "))
}

// OpenChannels lists the ways two policies' plugins may still pass each
// other information under p on this machine, one phrase each; nil when
// there is none (strict). Bench turns --audit on by default when the list
// is not empty, and says so. What each layer closes:
//
//   - seccomp: file locks (flock, fcntl's POSIX and OFD locks, leases),
//     inotify and dnotify, System V IPC, POSIX message queues, and every
//     socket but a unix stream socket, which may not connect;
//   - Landlock: every file but the plugin's own directory, the system's
//     read-only trees and its private directory (so no shared writable
//     file or directory); from ABI 6, signals and abstract unix sockets
//     leaving the plugin's domain;
//   - namespaces: another plugin's processes (PID namespace), its
//     abstract unix socket names (network namespace), the PID counter,
//     and the host's IPC objects.
func (p Plan) OpenChannels() []string {
	l := p.Layers
	if l == 0 {
		return []string{"everything (the sandbox is off: shared files, file locks, IPC, sockets, signals)"}
	}
	var out []string
	if l&Landlock == 0 {
		out = append(out, "files both may write (no Landlock)")
	}
	if l&Seccomp == 0 {
		out = append(out, "file locks, inotify and unix sockets (no seccomp)")
		if l&Namespaces == 0 {
			out = append(out, "System V IPC and POSIX message queues (no seccomp, no IPC namespace)")
		}
	}
	if l&Namespaces == 0 {
		out = append(out, "the PID counter (no PID namespace: each plugin sees how many processes the others start)",
			"abstract unix socket names (no network namespace: a bind fails when another plugin holds the name)")
		if l&Landlock == 0 || landlockABI() < 6 {
			out = append(out, "signals (no PID namespace, and no Landlock signal scope: Landlock ABI < 6)")
		}
	}
	return out
}

// readPaths returns c.Read made absolute, each checked to exist.
func (c Config) readPaths() ([]string, error) {
	var out []string
	for _, r := range c.Read {
		abs, err := filepath.Abs(r)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return nil, &ConfigError{Setting: SettingRead, Value: r, Err: err}
		}
		out = append(out, abs)
	}
	return out, nil
}
