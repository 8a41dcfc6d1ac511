package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestStopSelf: the faulty plugin's frozen mode (sigstop) is frozen from
// the moment it stops itself: the call that stops it does not return
// before something continues the process, even when the thread the kernel
// would give a process-directed SIGSTOP cannot run. Mode stop-self makes
// that so (one CPU, the stopping thread under SCHED_FIFO): a plugin that
// stopped itself with kill(getpid(), SIGSTOP) carried on and answered
// rounds after saying it stopped, and once finished its run.
func TestStopSelf(t *testing.T) {
	t.Log("rule: the fixture's stopSelf stops the calling thread before it returns; nothing continues it")
	dir := faultyPlugins(t)
	mark := filepath.Join(t.TempDir(), "returned")
	var stderr syncBuffer
	cmd := exec.Command(filepath.Join(dir, "faulty.bin"))
	cmd.Env = append(os.Environ(), "FAULTY_MODE=stop-self", "FAULTY_MARK="+mark)
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Minute // the deferred wait, once it is killed
	startOnOneCPU(t, cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-done
	}()

	deadline := time.Now().Add(time.Minute)
	for procState(cmd.Process.Pid) != "T" {
		select {
		case err := <-done:
			done <- err // for the deferred wait
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
				t.Skipf("cannot run a thread under SCHED_FIFO here: %s", stderr.String())
			}
			t.Fatalf("stop-self exited (%v) before it stopped; stderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("stop-self did not stop within a minute; stderr:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if data, err := os.ReadFile(mark); err == nil {
		t.Errorf("stopSelf returned (%q) although nothing continued the process: the thread that sent SIGSTOP ran on after it; stderr:\n%s",
			strings.TrimSpace(string(data)), stderr.String())
	}
}

// startOnOneCPU starts cmd with its CPU affinity set to one CPU of this
// process's: the child inherits the mask of the thread that forks it.
func startOnOneCPU(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	for c := 0; one.Count() == 0 && c < 1024; c++ {
		if all.IsSet(c) {
			one.Set(c)
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &all); rerr != nil {
		t.Errorf("restoring this thread's CPU affinity: %v", rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// procState returns the state letter of process pid ("R", "S", "T", ...),
// "" when it does not exist.
func procState(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
