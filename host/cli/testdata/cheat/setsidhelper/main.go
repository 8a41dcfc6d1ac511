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
	"strings"
	"syscall"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

const helperPrefix = "cheat-setsid-helper-"

// start starts path as argv in a new session, with the marker in its
// environment and no inherited file but /dev/null.
func start(path string, argv ...string) (*exec.Cmd, error) {
	cmd := &exec.Cmd{Path: path, Args: argv,
		Env:         []string{"CHEAT_SETSID_MARKER=" + strings.TrimPrefix(argv[0], helperPrefix)},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	return cmd, cmd.Start()
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
	time.Sleep(time.Hour)
	os.Exit(0)
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
	if base := filepath.Base(os.Args[0]); strings.HasPrefix(base, helperPrefix) {
		helperMain()
	}
	sdk.Serve(sdk.Plugin{
		Name: "cheat-setsid", Version: "0.0.1", Diagnostics: []string{"helper"},
		Params: []sdk.Param{{Name: "marker", Type: sdk.String, Default: "none", Doc: "a mark for the helper's argv and environment"}},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			r := &roundRobin{k: s.Arms}
			if err := spawn(helperPrefix+s.Params.String("marker"), true); err != nil {
				fmt.Fprintf(os.Stderr, "cheat-setsid: no helper: %v\n", err)
			} else {
				r.started = 1
			}
			return r, nil
		},
	})
}
