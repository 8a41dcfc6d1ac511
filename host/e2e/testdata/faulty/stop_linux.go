package main

import (
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// stopSelf stops the process, as a SIGSTOP sent from outside does, and
// returns only once something continues it.
//
// The signal goes to the calling thread (tgkill), which stops on its way
// out of the system call, and every other thread with it. Sent to the
// process instead, kill(getpid(), SIGSTOP), it is taken by a thread the
// kernel picks, the main thread when it can, and until that thread gets a
// CPU and starts the stop, the calling thread carries on. On a busy
// machine the sigstop plugin so answered round 5, mostly round 6 or
// later rounds too, and once (the CI flake) every round and the session's
// Close, so that its policy finished "ok" and bench killed it
// procrun.KillGrace later. Nothing sent it SIGCONT: tracing the kernel's
// signal_generate events showed none, and showed the SIGSTOP sent by one
// thread and dequeued by the main thread.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
}

// checkStopSelf is mode stop-self, for TestStopSelf, which starts it on a
// single CPU: it makes the race that stopSelf avoids a certainty and writes
// $FAULTY_MARK if stopSelf returned although nothing continued the
// process. The stopping thread is not the main thread and runs under
// SCHED_FIFO, so the main thread, which a process-directed SIGSTOP wakes,
// gets the CPU only once the stopping thread blocks. It returns the exit
// code: 4 without SCHED_FIFO (no CAP_SYS_NICE), 5 when it runs on more
// than one CPU, 1 on other errors.
func checkStopSelf() int {
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cpus); err != nil || cpus.Count() != 1 {
		say("want a single CPU, have %d (%v)", cpus.Count(), err)
		return 5
	}
	fail := make(chan int)
	for {
		onMain := make(chan bool)
		go func() {
			// Locked for good: a main thread found here stays asleep,
			// with this goroutine, and the next goroutine gets another.
			runtime.LockOSThread()
			if unix.Gettid() == unix.Getpid() {
				onMain <- true
				select {}
			}
			onMain <- false
			attr := &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 1}
			if err := unix.SchedSetAttr(0, attr, 0); err != nil {
				say("SCHED_FIFO: %v", err)
				fail <- 4
				return
			}
			say("stopping thread %d", unix.Gettid())
			stopSelf()
			if err := os.WriteFile(os.Getenv("FAULTY_MARK"), []byte("stopSelf returned\n"), 0o644); err != nil {
				say("%v", err)
				fail <- 1
				return
			}
			select {}
		}()
		if !<-onMain {
			break
		}
	}
	for {
		select {
		case code := <-fail:
			return code
		case <-time.After(time.Hour): // a timer: the runtime sees no deadlock
		}
	}
}
