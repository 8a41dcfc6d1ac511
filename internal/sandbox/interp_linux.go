package sandbox

// Interpreter lookup: what a confined plugin may read and execute, its
// #! line's interpreter and that interpreter's prefix included.

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// systemRead are the system's library and interpreter trees, and the few
// files a dynamic loader or an interpreter reads at start.
var systemRead = []string{
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives",
	"/sys/devices/system/cpu", "/dev/urandom", "/dev/random", "/dev/zero",
}

// readPaths lists what the plugin at path may read and execute: the
// system's trees, its own directory (as named and as resolved), the
// prefix of the interpreter its #! line names (a venv, say), and /proc
// when it is the PID namespace's own.
func readPaths(path, envPath string, freshProc bool) []string {
	out := append([]string(nil), systemRead...)
	if m, _ := filepath.Glob("/etc/python3*"); len(m) > 0 {
		out = append(out, m...)
	}
	if freshProc {
		out = append(out, "/proc")
	}
	out = append(out, filepath.Dir(path))
	if real, err := filepath.EvalSymlinks(path); err == nil {
		out = append(out, filepath.Dir(real))
	}
	if interp := interpreter(path, envPath); interp != "" {
		out = append(out, prefixes(interp)...)
	}
	return dedupe(out)
}

// interpreter returns the program a script's #! line runs, looked up in
// PATH when the line is "#!/usr/bin/env NAME"; "" for a binary.
func interpreter(path, envPath string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" || !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	interp := fields[0]
	if filepath.Base(interp) == "env" {
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			for _, dir := range filepath.SplitList(envPath) {
				if p := filepath.Join(dir, f); isExecutable(p) {
					return p
				}
			}
			return ""
		}
	}
	return interp
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// prefixes returns the installation prefixes of an interpreter, as named
// and as resolved: the directory above its bin/ (a venv, a pyenv version),
// never the root itself.
func prefixes(interp string) []string {
	var out []string
	add := func(p string) {
		dir := filepath.Dir(p)
		if filepath.Base(dir) == "bin" {
			dir = filepath.Dir(dir)
		}
		if dir != "/" && dir != "." {
			out = append(out, dir)
		}
	}
	add(interp)
	if real, err := filepath.EvalSymlinks(interp); err == nil {
		add(real)
	}
	return out
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range s {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
