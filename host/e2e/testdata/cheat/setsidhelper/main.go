//go:build linux

// Command setsidhelper is a plugin for host/cli's sandbox tests
// (sandbox_cheat_linux_test.go), written on the public SDK: when bench
// opens a session it leaves a process behind that tries its best to
// outlive bench. It re-executes itself in a new session (setsid: out of
// the plugin's process group, which bench kills), and that process starts
// the real helper in yet another session and exits, so that the helper is
// no child of the plugin either (a daemon's double fork). The helper
// ignores SIGHUP, SIGINT and SIGTERM, holds none of the plugin's pipes and
// sleeps for an hour.
//
// With parameter launcher (kill, stop or ptrace) the helper then turns
// on the process that started the plugin (its launcher, the plugin's
// parent, whose pid the plugin passes on): SIGKILL, SIGSTOP, or
// PTRACE_SEIZE with PTRACE_INTERRUPT, never detached (the tracing thread
// lives as long as the helper), so that the launcher can no longer end
// what the plugin started; it writes "ok" or the error to the file named
// by parameter report, where it may.
//
// Every process of it carries the parameter marker in its argv[0]
// ("cheat-setsid-helper-MARKER") and in its environment
// (CHEAT_SETSID_MARKER), for the test to find it in /proc. Its diagnostic
// "helper" is 1 once the helper was started. It plays round robin.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/regretbench/regretbench/sdk"
)

const helperPrefix = "cheat-setsid-helper-"

// attack is what the helper does to the launcher: the variables
// CHEAT_SETSID_ATTACK, CHEAT_SETSID_LAUNCHER and CHEAT_SETSID_REPORT,
// which every generation passes on.
var attack []string

// start starts path as argv in a new session, with the marker and the
// attack in its environment and no inherited file but /dev/null.
func start(path string, argv ...string) (*exec.Cmd, error) {
	cmd := &exec.Cmd{Path: path, Args: argv,
		Env:         append([]string{"CHEAT_SETSID_MARKER=" + strings.TrimPrefix(argv[0], helperPrefix)}, attack...),
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	return cmd, cmd.Start()
}

// attackLauncher does CHEAT_SETSID_ATTACK to the launcher, from the
// calling thread, which must stay alive (a ptrace tracer's exit detaches
// it), and reports.
func attackLauncher() {
	mode := os.Getenv("CHEAT_SETSID_ATTACK")
	pid, _ := strconv.Atoi(os.Getenv("CHEAT_SETSID_LAUNCHER"))
	if mode == "" || pid <= 1 {
		return
	}
	var err error
	done := func() {
		msg := "ok"
		if err != nil {
			msg = err.Error()
		}
		for _, f := range []string{os.Getenv("CHEAT_SETSID_REPORT"), os.Getenv("CHEAT_SETSID_DONE")} {
			if f != "" {
				os.WriteFile(f, []byte(msg), 0o644)
			}
		}
	}
	switch mode {
	case "kill":
		// Report first: the launcher's death soon ends this process.
		if err = unix.Kill(pid, 0); err == nil {
			done()
			unix.Kill(pid, unix.SIGKILL)
			return
		}
	case "stop":
		err = unix.Kill(pid, unix.SIGSTOP)
	case "ptrace":
		if err = unix.PtraceSeize(pid); err == nil {
			err = unix.PtraceInterrupt(pid)
		}
	default:
		err = fmt.Errorf("unknown attack %q", mode)
	}
	done()
}

// spawn starts the helper as argv0: this executable when it can exec
// itself, passing through a first generation that exits when fork is set;
// else sleep(1), directly.
func spawn(argv0 string, fork bool) error {
	args := []string{argv0}
	if fork {
		args = append(args, "fork")
	}
	cmd, err := start("/proc/self/exe", args...)
	if err == nil {
		if fork {
			return cmd.Wait()
		}
		return nil
	}
	for _, sleep := range []string{"/usr/bin/sleep", "/bin/sleep"} {
		if cmd, err = start(sleep, argv0, "3600"); err == nil {
			go cmd.Wait()
			return nil
		}
	}
	return err
}

func helperMain() {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	if len(os.Args) > 1 && os.Args[1] == "fork" {
		// The first generation: start the helper, then exit, so that it
		// is reparented away from the plugin.
		if spawn(os.Args[0], false) != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	runtime.LockOSThread() // the tracer, if it attacks by ptrace: never ends before the helper
	attackLauncher()
	time.Sleep(time.Hour)
	os.Exit(0)
}

// waitAttack waits, up to 30 s, for the helper to have made its attack
// on the launcher, if it makes one: the session must not end before.
func waitAttack() {
	for _, kv := range attack {
		if f, ok := strings.CutPrefix(kv, "CHEAT_SETSID_DONE="); ok {
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(f); err == nil {
					return
				}
			}
		}
	}
}

type roundRobin struct {
	k       int
	started float64
}

func (r *roundRobin) Step(st *sdk.BatchStep) error {
	for i := range st.Arms {
		st.Arms[i] = int32((st.Round - 1) % r.k)
		if st.Diagnostics != nil {
			st.Diagnostics[0][i] = r.started
		}
	}
	return nil
}

func main() {
	for _, k := range []string{"CHEAT_SETSID_ATTACK", "CHEAT_SETSID_LAUNCHER", "CHEAT_SETSID_REPORT", "CHEAT_SETSID_DONE"} {
		if v, ok := os.LookupEnv(k); ok {
			attack = append(attack, k+"="+v)
		}
	}
	if base := filepath.Base(os.Args[0]); strings.HasPrefix(base, helperPrefix) {
		helperMain()
	}
	sdk.Serve(sdk.Plugin{
		Name: "cheat-setsid", Version: "0.0.1", Diagnostics: []string{"helper"},
		Params: []sdk.Param{{Name: "marker", Type: sdk.String, Default: "none", Doc: "a mark for the helper's argv and environment"},
			{Name: "launcher", Type: sdk.String, Default: "", Doc: "what the helper does to the launcher: kill, stop or ptrace"},
			{Name: "report", Type: sdk.String, Default: "", Doc: "a file for the helper to write how its attack went"}},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			r := &roundRobin{k: s.Arms}
			if mode := s.Params.String("launcher"); mode != "" && attack == nil {
				attack = []string{"CHEAT_SETSID_ATTACK=" + mode, "CHEAT_SETSID_LAUNCHER=" + strconv.Itoa(os.Getppid()),
					"CHEAT_SETSID_REPORT=" + s.Params.String("report"),
					"CHEAT_SETSID_DONE=" + filepath.Join(os.TempDir(), "attacked-"+s.Params.String("marker"))}
			}
			if err := spawn(helperPrefix+s.Params.String("marker"), true); err != nil {
				fmt.Fprintf(os.Stderr, "cheat-setsid: no helper: %v\n", err)
			} else {
				r.started = 1
				waitAttack()
			}
			return r, nil
		},
	})
}
