package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/wire"
)

// isPython matches the file names of Python interpreters: python3,
// python3.12, python, pypy3.
var isPython = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// ShebangWarnings returns, for bench conform, what is wrong with the #!
// line of the script at path, each a sentence naming the path: an
// interpreter that does not exist, is not executable or is not found in
// PATH (#!/usr/bin/env NAME), an interpreter that is a version manager's
// shim (shimWarning), an interpreter (a Python one, or one that is itself
// a script) that cannot start under plan ("Permission denied"), and, for
// a Python interpreter, a module it cannot import (the SDK, grpc, numpy).
// None for an executable that is not a script.
//
// The start and import check starts the plugin as bench would, under plan, but
// without go-plugin's magic cookie: a Python plugin imports what it needs
// and then (the SDK's serve) exits saying it is not meant to be run
// directly, or dies of an ImportError, which is what is reported. So it
// sees the interpreter, PATH, sys.path and files the plugin will see, and
// runs nothing the conformance kit does not run right after. It waits at
// most timeout (bench conform's --start-timeout, within which the plugin
// must start anyway), and says nothing of a plugin still running then.
func ShebangWarnings(path string, plan *sandbox.Plan, timeout time.Duration) []string {
	line, _, err := readShebang(path)
	if err != nil || line == "" {
		return nil
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return []string{fmt.Sprintf("plugin %s: its #! line names no interpreter", path)}
	}
	interp := fields[0]
	if !filepath.IsAbs(interp) {
		return []string{fmt.Sprintf("plugin %s: its #! line names %s, a relative path, which the kernel resolves against the working directory: name an absolute path, e.g. #!/usr/bin/env python3", path, interp)}
	}
	if !isExecutableFile(interp) {
		return []string{fmt.Sprintf("plugin %s: its #! line names %s, %s: the plugin cannot start (docs/install.md: a Python plugin's #! line)", path, interp, missingWhat(interp))}
	}
	if filepath.Base(interp) == "env" {
		name := ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				name = f
				break
			}
		}
		if name == "" {
			return nil
		}
		found, err := exec.LookPath(name)
		if err != nil {
			return []string{fmt.Sprintf("plugin %s: its #! line runs %s from PATH, and PATH has none: the plugin cannot start (docs/install.md: a Python plugin's #! line)", path, name)}
		}
		interp = found
	}
	if w := shimWarning(path, interp, line); w != "" {
		return []string{w}
	}
	if !isPython.MatchString(filepath.Base(interp)) && !isScript(interp) {
		return nil // a binary interpreter: the kit's handshake says the rest
	}
	missing, err := probeImports(path, plan, timeout)
	if err != nil {
		return []string{fmt.Sprintf("plugin %s: could not check that its interpreter %s starts: %v", path, interp, err)}
	}
	if strings.HasPrefix(missing, cannotStart) {
		return []string{fmt.Sprintf("plugin %s: its interpreter %s (#!%s) cannot start (sandbox %s): %s. A confined plugin may read only its own directory, the system's trees and its interpreter's prefix: --sandbox-read PATH adds one", path, interp, line, plan.Layers, strings.TrimPrefix(missing, cannotStart))}
	}
	if missing == "" {
		return nil
	}
	return []string{fmt.Sprintf("plugin %s: its interpreter %s (#!%s) %s: the plugin cannot start. "+
		"Make a virtual environment that has it (python3 -m venv --system-site-packages DIR; DIR/bin/pip install regretbench's sdk/python) "+
		"and name DIR/bin/python3 in the #! line, or keep #!/usr/bin/env python3 with DIR/bin first in PATH (docs/install.md)",
		path, interp, line, missing)}
}

// ShimWarning says, for bench plugins, when the #! line of the script at
// path runs a shim (see shimWarning); "" when it does not, or path is not
// a script. It starts nothing.
func ShimWarning(path string) string {
	line, _, err := readShebang(path)
	if err != nil || line == "" {
		return ""
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	interp := fields[0]
	if filepath.Base(interp) == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				found, err := exec.LookPath(f)
				if err != nil {
					return ""
				}
				interp = found
				break
			}
		}
	}
	return shimWarning(path, interp, line)
}

// shimWarning says when interp, the interpreter of the plugin at path
// (#!line), is a shim: a script in a directory named shims, as pyenv's,
// asdf's or rbenv's, which runs the real interpreter from elsewhere (the
// version manager's own tree). The sandbox lets a plugin read its
// interpreter's prefix, the shims directory, but not that tree, so the
// shim fails with "Permission denied"; unconfined it works. "" when
// interp is no shim.
func shimWarning(path, interp, line string) string {
	if !isShim(interp) {
		return ""
	}
	return fmt.Sprintf("plugin %s: its interpreter %s (#!%s) is a shim, a script of a version manager (pyenv, asdf) that runs the real interpreter from the manager's own directory: "+
		"under the sandbox (bench's default) that directory is out of reach and the plugin fails with \"Permission denied\". "+
		"Name the real interpreter in the #! line (pyenv: the path `pyenv which python3` prints; better, a venv made with it: docs/install.md), "+
		"or put the real interpreter's bin directory before the shims in PATH", path, interp, line)
}

// isShim reports whether p (or the file it links to) is a script in a
// directory named shims.
func isShim(p string) bool {
	for _, q := range []string{p, resolved(p)} {
		if q == "" || filepath.Base(filepath.Dir(q)) != "shims" {
			continue
		}
		if l, _, err := readShebang(q); err == nil && l != "" {
			return true
		}
	}
	return false
}

// isScript reports whether p is a script (a #! line): an interpreter
// that runs another, which may be out of the sandbox's reach.
func isScript(p string) bool {
	l, _, err := readShebang(p)
	return err == nil && l != ""
}

// resolved returns p with its links resolved; "" when they cannot be.
func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// readShebang returns the #! line of the file at path, without "#!" and
// surrounding spaces, and the file's first 64 KiB; "" when it is not a
// script. What Check refuses (a FIFO, a device) is not opened.
func readShebang(path string) (string, []byte, error) {
	if err := Check(path); err != nil {
		return "", nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", nil, err
	}
	if !bytes.HasPrefix(head, []byte("#!")) {
		return "", nil, nil
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	return strings.TrimSpace(string(line)), head, nil
}

// isExecutableFile reports whether p is an executable file, links
// resolved.
func isExecutableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// missingWhat says why the interpreter p cannot run.
func missingWhat(p string) string {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := os.Lstat(p); lerr == nil {
			return "a dangling symbolic link (its virtual environment moved or was deleted?)"
		}
		return "which does not exist"
	case err != nil:
		return err.Error()
	case !st.Mode().IsRegular():
		return "which is not a regular file"
	}
	return "which is not executable"
}

// importError matches the last line of Python's traceback of a failed
// import.
var importError = regexp.MustCompile(`(?m)^(?:ModuleNotFoundError|ImportError): (.*)$`)

// probeImports starts the plugin at path under plan without the magic
// cookie and returns, when it died of a failed import, what failed
// ("fails an import: No module named 'grpc'"); "" when it did not.
func probeImports(path string, plan *sandbox.Plan, timeout time.Duration) (string, error) {
	private, err := os.MkdirTemp("", "bench-probe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(private)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, wire.Handshake.MagicCookieKey+"=") {
			env = append(env, kv)
		}
	}
	cmd, err := plan.Command(path, env, private, nil)
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // stdin and stdout: /dev/null
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Stop()
		cmd.Process.Kill()
		<-done
		return "", nil // still running: not an import failure
	}
	cmd.Stop()
	m := importError.FindAllStringSubmatch(stderr.String(), -1)
	if m == nil {
		if e := execError.FindAllString(stderr.String(), -1); e != nil {
			return cannotStart + strings.TrimSpace(e[len(e)-1]), nil
		}
		return "", nil
	}
	return "fails an import: " + m[len(m)-1][1], nil
}

// cannotStart begins probeImports' answer when the interpreter, or what
// it runs, could not be executed.
const cannotStart = "cannot start: "

// execError matches a line of a shell's, env's or the launcher's message
// that a program could not be executed ("/x/shims/python3: line 3:
// /x/libexec/pyenv: Permission denied").
var execError = regexp.MustCompile(`(?mi)^.*(?:permission denied|exec format error|cannot execute.*|no such file or directory)\s*$`)
