//go:build unix

package procrun

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new session, and so of a new
// process group: bench's signals from the terminal do not reach it,
// killGroup reaches everything it starts that stays in the group, and
// nothing it starts can join bench's session (or bench's process group,
// which only a process of that session may), which is how bench tells
// its own children from orphans it adopted (sweepOrphans).
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = false // a session leader may not set it
	cmd.SysProcAttr.Setsid = true
}

// killGroup sends SIGKILL to the process group of cmd's process, which
// must not have been reaped yet (else its pid may be another's), and to
// a tracer of that process that descends from it (killTracer).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		killTracer(cmd.Process.Pid)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
