//go:build unix

package procrun

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new process group: bench's
// signals from the terminal do not reach it, and killGroup reaches
// everything it starts.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup sends SIGKILL to the process group of cmd's process, which
// must not have been reaped yet (else its pid may be another's).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
