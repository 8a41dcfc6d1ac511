//go:build linux

// Command escape is the sandbox's one escape probe: it tries what a
// hostile plugin would try to learn about or reach beyond itself, the
// attempts of one table (attempts.go), each under one name. It runs in
// one of two modes.
//
// Run as itself (the sandbox package's tests), it makes every attempt in
// turn and prints one line per attempt, "NAME ok [DETAIL]" when it worked
// and "NAME denied: ERROR" when it did not, then "done"; with ESCAPE_STAY=1
// it then waits to be killed. Its inputs come from ESCAPE_* environment
// variables, which the tests let through the sandbox's scrubbing:
//
//	ESCAPE_HOSTPID     the process that stands for bench (the test)
//	ESCAPE_SECRET      a file it must not read
//	ESCAPE_OUTDIR      a directory it must not write (ESCAPE_OUTDIR/escaped)
//	ESCAPE_TCP         a TCP address it must not reach
//	ESCAPE_UDP         a UDP address it must not reach
//	ESCAPE_UNIX        a unix stream socket it must not connect to
//	ESCAPE_UNIXGRAM    a unix datagram socket it must not send to
//	ESCAPE_ABSTRACT    an abstract unix socket name it must not connect to
//	ESCAPE_TOKEN       what it sends and writes: TOKEN-NAME for attempt NAME
//	ESCAPE_SCAN        what proc-scan looks for in other command lines
//	ESCAPE_PRIVATE     its private directory, which launcher-cmdline must not show
//	ESCAPE_MARKER      a marker for its setsid helper's command line
//	ESCAPE_HOSTNAME    the machine's host name, which it must not see
//	ESCAPE_LEAK        must not reach it (env-leak): the tests do not let it through
//
// Linked as bench-plugin-cheat-probe-NAME (host/cli's tests), it is a
// plugin written on the public SDK that makes attempt NAME alone, in a
// process of its own, when bench opens a session, and reports how that
// went as its Open error, the one channel every sandbox must leave open
// (bench records it in the results file): "escape-probe NAME: ok: DETAIL"
// or "escape-probe NAME: failed: ERROR". Its inputs are its parameters:
// addr (the address the network attempts reach), path (the file read-secret
// reads and write-outside writes) and token (what it sends or writes, and
// what read-host-environ looks for in bench's environment). Bench is then
// the nearest ancestor whose command line has --scenario.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// pluginPrefix begins the name the probe runs under as a plugin.
const pluginPrefix = "bench-plugin-cheat-probe-"

func main() {
	if os.Getenv("ESCAPE_ROLE") == "helper" {
		for {
			time.Sleep(time.Hour) // a helper that wants to outlive its plugin
		}
	}
	if name, ok := strings.CutPrefix(filepath.Base(os.Args[0]), pluginPrefix); ok {
		servePlugin(name)
		return
	}
	in := envInputs()
	for _, a := range attempts {
		in.token = os.Getenv("ESCAPE_TOKEN") + "-" + a.name
		detail, err := a.try(in)
		if err != nil {
			fmt.Printf("%s denied: %s\n", a.name, strings.ReplaceAll(err.Error(), "\n", "; "))
			continue
		}
		fmt.Printf("%s ok %s\n", a.name, detail)
	}
	fmt.Println("done")
	if strings.Contains(os.Getenv("ESCAPE_STAY"), "1") {
		for {
			time.Sleep(time.Hour)
		}
	}
}

// envInputs reads the inputs of a run as itself.
func envInputs() *inputs {
	in := &inputs{
		secret:     os.Getenv("ESCAPE_SECRET"),
		tcp:        os.Getenv("ESCAPE_TCP"),
		udp:        os.Getenv("ESCAPE_UDP"),
		unixStream: os.Getenv("ESCAPE_UNIX"),
		unixDgram:  os.Getenv("ESCAPE_UNIXGRAM"),
		abstract:   os.Getenv("ESCAPE_ABSTRACT"),
		scan:       os.Getenv("ESCAPE_SCAN"),
		private:    os.Getenv("ESCAPE_PRIVATE"),
		marker:     os.Getenv("ESCAPE_MARKER"),
		hostname:   os.Getenv("ESCAPE_HOSTNAME"),
	}
	if in.scan == "" {
		in.scan = "--scenario\x00"
	}
	if d := os.Getenv("ESCAPE_OUTDIR"); d != "" {
		in.outside = filepath.Join(d, "escaped")
	}
	if pid, err := strconv.Atoi(os.Getenv("ESCAPE_HOSTPID")); err == nil {
		in.host, in.hostSeen = pid, true
	} else {
		in.host, in.hostSeen = benchPid()
	}
	return in
}
