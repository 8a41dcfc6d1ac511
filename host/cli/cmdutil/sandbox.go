package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// SandboxOptions are --sandbox, --sandbox-read and the --limit-* flags, on
// every command that starts plugins: run (and the root's bench
// --scenario), paper, conform and plugins. Like every flag they may come
// from BENCH_SANDBOX, BENCH_SANDBOX_READ, BENCH_LIMIT_MEMORY, ... or the
// --config file.
type SandboxOptions struct {
	Level string   // --sandbox
	Read  []string // --sandbox-read
	// --limit-*: what each plugin may take (package sandbox, Limits).
	LimitMemory, LimitTasks, LimitFiles, LimitDisk, LimitDiskFiles, LimitBy string
}

const sandboxHelp = `confine plugins: auto (as far as this machine allows; the default), strict (every layer, or refuse), or off (unconfined); see docs/threat-model.md`

// AddSandboxFlags registers the flags of o on fs.
func AddSandboxFlags(fs *pflag.FlagSet, o *SandboxOptions) {
	fs.StringVar(&o.Level, "sandbox", "auto", sandboxHelp)
	fs.StringArrayVar(&o.Read, "sandbox-read", nil, "let a confined plugin also read (and execute) this file or directory (repeatable)")
	d := sandbox.DefaultLimits
	fs.StringVar(&o.LimitMemory, "limit-memory", sandbox.FormatSize(d.Memory), "the memory each plugin may take, with all it starts (a cgroup's memory; without cgroups each process's address space, at least 2GiB); 'unlimited' lifts it")
	fs.StringVar(&o.LimitTasks, "limit-tasks", strconv.FormatInt(d.Tasks, 10), "the processes and threads each plugin may run, its launcher's included (a cgroup's pids.max; without cgroups RLIMIT_NPROC, only in a user namespace and not as root); 'unlimited' lifts it")
	fs.StringVar(&o.LimitFiles, "limit-files", strconv.FormatInt(d.Files, 10), "the files each process of a plugin may hold open (RLIMIT_NOFILE); 'unlimited' lifts it")
	fs.StringVar(&o.LimitDisk, "limit-disk", sandbox.FormatSize(d.Disk), "the bytes a plugin's private directory may hold, and the largest file it may write anywhere (RLIMIT_FSIZE); bench kills a plugin whose directory holds more; 'unlimited' lifts it")
	fs.StringVar(&o.LimitDiskFiles, "limit-disk-files", strconv.FormatInt(d.DiskFiles, 10), "the files and directories a plugin's private directory may hold; bench kills a plugin whose directory holds more; 'unlimited' lifts it")
	fs.StringVar(&o.LimitBy, "limit-by", sandbox.ByAuto, "how to enforce --limit-memory and --limit-tasks: auto (a cgroup of each plugin's own where bench may make one, else rlimits), cgroup (or refuse), or rlimit; see docs/threat-model.md, Limits")
}

// limits parses the --limit-* flags: exit 2 naming the one at fault.
func (o *SandboxOptions) limits() (sandbox.Limits, error) {
	var l sandbox.Limits
	var err error
	size := func(flag, v string, dst *int64) {
		if err != nil {
			return
		}
		if isUnlimited(v) {
			*dst = -1
			return
		}
		n, e := sandbox.ParseSize(v)
		if e == nil && n == 0 {
			e = fmt.Errorf("0: say 'unlimited' to lift the limit")
		}
		if e != nil {
			err = fmt.Errorf("--%s: %w", flag, e)
		}
		*dst = n
	}
	count := func(flag, v string, dst *int64) {
		if err != nil {
			return
		}
		if isUnlimited(v) {
			*dst = -1
			return
		}
		n, e := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if e != nil || n <= 0 {
			err = fmt.Errorf("--%s %q: want a positive whole number, or 'unlimited'", flag, v)
		}
		*dst = n
	}
	size("limit-memory", o.LimitMemory, &l.Memory)
	count("limit-tasks", o.LimitTasks, &l.Tasks)
	count("limit-files", o.LimitFiles, &l.Files)
	size("limit-disk", o.LimitDisk, &l.Disk)
	count("limit-disk-files", o.LimitDiskFiles, &l.DiskFiles)
	if err == nil {
		l.By, err = sandbox.ParseBy(o.LimitBy)
	}
	if err != nil {
		return l, exitcode.With(exitcode.Input, sandboxFlagError(err))
	}
	return l, nil
}

func isUnlimited(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "unlimited", "none", "off":
		return true
	}
	return false
}

// Config parses the flags into the sandbox they ask for, once, before
// anything runs: exit 2 naming the flag at fault. Deciding it on this
// machine is run's (run.NewSandbox), when the first plugin starts.
func (o *SandboxOptions) Config() (sandbox.Config, error) {
	level, err := sandbox.ParseLevel(o.Level)
	if err != nil {
		return sandbox.Config{}, exitcode.With(exitcode.Input, fmt.Errorf("--sandbox: %w", err))
	}
	limits, err := o.limits()
	if err != nil {
		return sandbox.Config{}, err
	}
	return sandbox.Config{Level: level, Read: o.Read, Limits: limits}, nil
}

// Plan parses the flags (Config) and decides the sandbox on this machine
// (run.NewSandbox), for the commands that start plugins outside a run
// (conform, plugins).
func (o *SandboxOptions) Plan(stderr io.Writer) (*sandbox.Plan, error) {
	cfg, err := o.Config()
	if err != nil {
		return nil, err
	}
	p, err := run.NewSandbox(cfg, stderr)
	return p, Flagged(err)
}

// sandboxFlags are the flags of the sandbox's settings.
var sandboxFlags = map[sandbox.Setting]string{
	sandbox.SettingLevel:       "--sandbox",
	sandbox.SettingRead:        "--sandbox-read",
	sandbox.SettingLimitBy:     "--limit-by",
	sandbox.SettingLimitMemory: "--limit-memory",
}

// sandboxFlagError says a sandbox.ConfigError in flags: "--sandbox
// strict: ... (--sandbox off runs them unconfined)". Other errors are
// returned as they are.
func sandboxFlagError(err error) error {
	var ce *sandbox.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	flag, ok := sandboxFlags[ce.Setting]
	if !ok {
		return err
	}
	msg := fmt.Sprintf("%s %s: %v%s", flag, ce.Value, ce.Err, ce.InsteadText(flag+" "))
	return &flagError{strings.Replace(err.Error(), ce.Error(), msg, 1), err}
}
