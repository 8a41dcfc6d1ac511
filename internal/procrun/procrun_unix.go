//go:build unix

package procrun

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new process group: bench's
// signals from the terminal do not reach it, and killGroup reaches
// everything it starts. Not a session of its own, which would tell bench's
// orphans apart more surely (sweepOrphans): a new session is a new
// scheduler autogroup, and under load a plugin's start then took tens of
// milliseconds more.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
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
