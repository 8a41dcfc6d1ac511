package e2e_test

import (
	"bytes"
	"os/exec"
	"testing"
	"time"
)

// cmdLimit bounds every command a test runs to its end (bench, go
// install, make, python, pip): generous, as a cold build of the module on
// two busy cores takes minutes, yet short of go test's -timeout, so that
// a command that hangs fails its test naming the command, not the whole
// package with every stack.
const cmdLimit = 15 * time.Minute

// runLimited runs cmd to its end and returns what cmd.Run would; a cmd
// still running after cmdLimit is killed and fails the test, naming it.
// A process cmd started that keeps its output open holds the wait a
// minute at most (WaitDelay).
func runLimited(t testing.TB, cmd *exec.Cmd) error {
	t.Helper()
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = time.Minute
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	return waitLimited(t, cmd)
}

// waitLimited is cmd.Wait for a started cmd, within cmdLimit
// (runLimited).
func waitLimited(t testing.TB, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(cmdLimit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: still running after %v", cmd, cmdLimit)
		return nil
	}
}

// combinedOutput is cmd.CombinedOutput within cmdLimit (runLimited).
func combinedOutput(t testing.TB, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := runLimited(t, cmd)
	return b.Bytes(), err
}

// output is cmd.Output within cmdLimit (runLimited): its stdout, and its
// stderr in the *exec.ExitError of a failure.
func output(t testing.TB, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	if cmd.Stderr == nil {
		cmd.Stderr = &errb
	}
	err := runLimited(t, cmd)
	if ee, ok := err.(*exec.ExitError); ok {
		ee.Stderr = errb.Bytes()
	}
	return out.Bytes(), err
}
