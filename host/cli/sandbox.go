package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// sandboxOptions are --sandbox, --sandbox-read and the --limit-* flags, on
// every command that starts plugins: run (and the root's bench
// --scenario), paper, conform and plugins. Like every flag they may come
// from BENCH_SANDBOX, BENCH_SANDBOX_READ, BENCH_LIMIT_MEMORY, ... or the
// --config file.
type sandboxOptions struct {
	level string
	read  []string
	// --limit-*: what each plugin may take (package sandbox, Limits).
	limitMemory, limitTasks, limitFiles, limitDisk, limitDiskFiles, limitBy string
}

const sandboxHelp = `confine plugins: auto (as far as this machine allows; the default), strict (every layer, or refuse), or off (unconfined); see docs/threat-model.md`

func addSandboxFlags(fs *pflag.FlagSet, o *sandboxOptions) {
	fs.StringVar(&o.level, "sandbox", "auto", sandboxHelp)
	fs.StringArrayVar(&o.read, "sandbox-read", nil, "let a confined plugin also read (and execute) this file or directory (repeatable)")
	d := sandbox.DefaultLimits
	fs.StringVar(&o.limitMemory, "limit-memory", sandbox.FormatSize(d.Memory), "the memory each plugin may take, with all it starts (a cgroup's memory; without cgroups each process's address space, at least 2GiB); 'unlimited' lifts it")
	fs.StringVar(&o.limitTasks, "limit-tasks", strconv.FormatInt(d.Tasks, 10), "the processes and threads each plugin may run, its launcher's included (a cgroup's pids.max; without cgroups RLIMIT_NPROC, only in a user namespace and not as root); 'unlimited' lifts it")
	fs.StringVar(&o.limitFiles, "limit-files", strconv.FormatInt(d.Files, 10), "the files each process of a plugin may hold open (RLIMIT_NOFILE); 'unlimited' lifts it")
	fs.StringVar(&o.limitDisk, "limit-disk", sandbox.FormatSize(d.Disk), "the bytes a plugin's private directory may hold, and the largest file it may write anywhere (RLIMIT_FSIZE); bench kills a plugin whose directory holds more; 'unlimited' lifts it")
	fs.StringVar(&o.limitDiskFiles, "limit-disk-files", strconv.FormatInt(d.DiskFiles, 10), "the files and directories a plugin's private directory may hold; bench kills a plugin whose directory holds more; 'unlimited' lifts it")
	fs.StringVar(&o.limitBy, "limit-by", sandbox.ByAuto, "how to enforce --limit-memory and --limit-tasks: auto (a cgroup of each plugin's own where bench may make one, else rlimits), cgroup (or refuse), or rlimit; see docs/threat-model.md, Limits")
}

// limits parses the --limit-* flags: exit 2 naming the one at fault.
func (o *sandboxOptions) limits() (sandbox.Limits, error) {
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
	size("limit-memory", o.limitMemory, &l.Memory)
	count("limit-tasks", o.limitTasks, &l.Tasks)
	count("limit-files", o.limitFiles, &l.Files)
	size("limit-disk", o.limitDisk, &l.Disk)
	count("limit-disk-files", o.limitDiskFiles, &l.DiskFiles)
	if err == nil {
		l.By, err = sandbox.ParseBy(o.limitBy)
	}
	if err != nil {
		return l, withCode(ExitInput, sandboxFlagError(err))
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

// check checks --sandbox's value before anything runs: exit 2 naming it.
func (o *sandboxOptions) check() error {
	if _, err := sandbox.ParseLevel(o.level); err != nil {
		return withCode(ExitInput, fmt.Errorf("--sandbox: %w", err))
	}
	_, err := o.limits()
	return err
}

// plan checks the flags and decides the sandbox on this machine. Under
// auto it prints, on stderr, the one line that says what is missing, if
// anything is. A bad level, a missing --sandbox-read path, or strict on a
// machine that cannot have it, is exit 2.
func (o *sandboxOptions) plan(stderr io.Writer) (*sandbox.Plan, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	level, _ := sandbox.ParseLevel(o.level)
	limits, _ := o.limits()
	p, err := launch.Plan(sandbox.Config{Level: level, Read: o.read, Limits: limits})
	if err != nil {
		return nil, withCode(ExitInput, sandboxFlagError(err))
	}
	if w := p.Warning(); w != "" {
		fmt.Fprintf(stderr, "bench: %s\n", w)
	}
	return p, nil
}
