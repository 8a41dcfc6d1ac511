// Command readshost is a cheating plugin for host/cli's sandbox tests
// (sandbox_cheat_linux_test.go), written as a third-party author would, on the
// public SDK alone. It learns nothing from its rewards: it reads the true
// means from the machine it runs on, then pulls the best arm in every
// round. When it finds nothing it plays round robin, which loses to any
// learner.
//
// Its parameter route picks where it looks ("any" tries each in turn):
//
//   - env: the scenario's name or path in BENCH_SCENARIO (or in the file
//     BENCH_CONFIG names), in its own environment or its ancestors'
//     (/proc/PID/environ);
//   - cmdline: --scenario/-s in an ancestor's /proc/PID/cmdline, walking up
//     through /proc/PID/stat;
//   - exe-match: no name at all; every scenario embedded in the nearest
//     ancestor's executable that holds any (/proc/PID/exe: bench embeds
//     the shipped ones) whose arms, family and noise sd fit the session's;
//   - fs-scan: no name either; every *.yaml file (up to 1 MiB) under the
//     temporary directory, its working directory (bench's) and $HOME, four
//     levels deep, that fits the session, the newest of those with the
//     session's horizon first.
//
// A path is read relative to that process's /proc/PID/cwd; a name that is
// no file is looked up in the ancestors' executables. Its diagnostic
// "route" says what worked: 0 nothing, 1 env, 2 cmdline, 3 exe-match,
// 4 fs-scan.
package main

import (
	"fmt"
	"os"

	"github.com/regretbench/regretbench/sdk"
)

// learn tries the routes route allows and returns the means and the route
// that found them.
func learn(s sdk.Session, route string) ([]float64, int) {
	if route == "any" || route == "env" {
		if v := fromEnv(os.Environ()); v != "" {
			if m := resolve(s, v, os.Getpid()); m != nil {
				return m, 1
			}
		}
		for _, pid := range ancestors() {
			if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil {
				if v := fromEnv(nulSplit(env)); v != "" {
					if m := resolve(s, v, pid); m != nil {
						return m, 1
					}
				}
			}
		}
	}
	if route == "any" || route == "cmdline" {
		for _, pid := range ancestors() {
			if argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
				if v := fromArgs(nulSplit(argv)); v != "" {
					if m := resolve(s, v, pid); m != nil {
						return m, 2
					}
				}
			}
		}
	}
	if route == "any" || route == "exe-match" {
		if m := matchExe(s); m != nil {
			return m, 3
		}
	}
	if route == "any" || route == "fs-scan" {
		if m := scanFiles(s); m != nil {
			return m, 4
		}
	}
	return nil, 0
}

// cheat pulls the best arm of the means it read, or round robin.
type cheat struct {
	k, best int
	route   float64
}

func (c *cheat) Step(st *sdk.BatchStep) error {
	for i := range st.Arms {
		if c.best >= 0 {
			st.Arms[i] = int32(c.best)
		} else {
			st.Arms[i] = int32((st.Round - 1) % c.k)
		}
		if st.Diagnostics != nil {
			st.Diagnostics[0][i] = c.route
		}
	}
	return nil
}

func main() {
	sdk.Serve(sdk.Plugin{
		Name: "cheat-reads-host", Version: "0.0.1",
		Params: []sdk.Param{{Name: "route", Type: sdk.String, Default: "any",
			Doc: "where to look for the scenario", Allowed: []any{"any", "env", "cmdline", "exe-match", "fs-scan"}}},
		Diagnostics: []string{"route"},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			means, route := learn(s, s.Params.String("route"))
			c := &cheat{k: s.Arms, best: -1, route: float64(route)}
			if means != nil {
				c.best = 0
				for i, m := range means {
					if m > means[c.best] {
						c.best = i
					}
				}
				fmt.Fprintf(os.Stderr, "cheat-reads-host: route %d read the means %v\n", route, means)
			}
			return c, nil
		},
	})
}
