//go:build !unix

package procrun

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

// killGroup kills cmd's process; there are no process groups to kill.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
