// Command readshost is a cheating plugin for host/cli's sandbox tests
// (sandbox_cheat_test.go), written as a third-party author would, on the
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
//   - exe-match: no name at all; every scenario embedded in an ancestor's
//     executable (/proc/PID/exe: bench embeds the shipped ones) whose arms,
//     family and noise sd fit the session's;
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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/sdk"
)

// scenarioDoc is what the cheat needs of a scenario file.
type scenarioDoc struct {
	Environment struct {
		Family  string    `yaml:"family"`
		Means   []float64 `yaml:"means"`
		NoiseSD float64   `yaml:"noise_sd"`
		Scale   float64   `yaml:"scale"`
	} `yaml:"environment"`
	Horizon int `yaml:"horizon"`
}

// fits reports whether d could be the scenario of session s.
func (d *scenarioDoc) fits(s sdk.Session) bool {
	fam := d.Environment.Family
	if fam == "" {
		fam = string(sdk.Gaussian)
	}
	return len(d.Environment.Means) == s.Arms && fam == string(s.Family) &&
		(!s.NoiseKnown || s.Family != sdk.Gaussian || d.Environment.NoiseSD == s.NoiseSD)
}

func (d *scenarioDoc) trueMeans() []float64 {
	m := append([]float64(nil), d.Environment.Means...)
	for i := range m {
		if d.Environment.Scale != 0 {
			m[i] *= d.Environment.Scale
		}
	}
	return m
}

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

// parseEmbedded parses the scenario file that starts data, up to its
// policies: key (embedded files lie back to back in the binary).
func parseEmbedded(data []byte) (*scenarioDoc, bool) {
	data = data[:min(len(data), 64<<10)]
	end := bytes.Index(data, []byte("\npolicies:"))
	if end < 0 || !bytes.Contains(data[:end], []byte("\nenvironment:")) {
		return nil, false
	}
	var d scenarioDoc
	if yaml.Unmarshal(data[:end], &d) != nil {
		return nil, false
	}
	return &d, true
}

// matchExe scans every scenario embedded in the nearest ancestor's
// executable that holds one fitting the session, preferring the session's
// horizon among them.
func matchExe(s sdk.Session) []float64 {
	for _, a := range ancestors() {
		exe, err := os.ReadFile(fmt.Sprintf("/proc/%d/exe", a))
		if err != nil {
			continue
		}
		var fit *scenarioDoc
		for off := 0; ; {
			i := bytes.Index(exe[off:], []byte("name: "))
			if i < 0 {
				break
			}
			off += i + 1
			if d, ok := parseEmbedded(exe[off-1:]); ok && d.fits(s) {
				if d.Horizon == s.Horizon {
					return d.trueMeans()
				}
				if fit == nil {
					fit = d
				}
			}
		}
		if fit != nil {
			return fit.trueMeans()
		}
	}
	return nil
}

// scanFiles looks for scenario files on disk.
func scanFiles(s sdk.Session) []float64 {
	var best *scenarioDoc
	var bestScore int64
	seen := 0
	for _, root := range []string{os.TempDir(), ".", os.Getenv("HOME")} {
		if root == "" {
			continue
		}
		root = filepath.Clean(root)
		depth := strings.Count(root, string(filepath.Separator))
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if seen++; err != nil || seen > 50000 {
				return filepath.SkipDir
			}
			if d.IsDir() {
				if p != root && (strings.HasPrefix(d.Name(), ".") || strings.Count(p, string(filepath.Separator))-depth >= 4) {
					return filepath.SkipDir
				}
				return nil
			}
			info, err := d.Info()
			if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 || !strings.HasSuffix(p, ".yaml") {
				return nil
			}
			var doc scenarioDoc
			if data, err := os.ReadFile(p); err != nil || yaml.Unmarshal(data, &doc) != nil || !doc.fits(s) {
				return nil
			}
			score := info.ModTime().UnixNano()
			if doc.Horizon == s.Horizon {
				score += 1 << 62
			}
			if best == nil || score > bestScore {
				best, bestScore = &doc, score
			}
			return nil
		})
	}
	if best == nil {
		return nil
	}
	return best.trueMeans()
}

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
