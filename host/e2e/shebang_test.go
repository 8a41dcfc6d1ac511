package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformShebangWarning: bench conform warns, before the kit's
// verdict, of a plugin whose #! line will not start it or whose Python
// cannot import what the SDK needs, naming the interpreter and the way
// out (a venv); a plugin that starts gets no warning.
func TestConformShebangWarning(t *testing.T) {
	skipShort(t, "bench conform on Python plugins with broken #! lines")
	t.Parallel()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("the Python plugins of this test run under %s, which is missing: %v", py, err)
	}
	root := repoRoot(t)
	sdk := filepath.Join(root, "sdk", "python")
	example, err := os.ReadFile(filepath.Join(root, "examples", "python", "bench-plugin-epsgreedy"))
	if err != nil {
		t.Fatal(err)
	}
	// body is the example without its #! line; it puts the repository's
	// SDK on sys.path from where it lies, so a copy elsewhere needs it on
	// PYTHONPATH, or a venv that has it.
	_, body, _ := strings.Cut(string(example), "\n")
	dir := t.TempDir()
	// A venv without the system's packages: no numpy, no grpc. And one
	// with them (the recommended way).
	bare, withSys := filepath.Join(dir, "bare"), filepath.Join(dir, "sys")
	for _, v := range [][]string{{bare}, {"--system-site-packages", withSys}} {
		if out, err := combinedOutput(t, exec.Command(py, append([]string{"-m", "venv", "--without-pip"}, v...)...)); err != nil {
			t.Skipf("python3 -m venv (Debian: python3-venv): %v\n%s", err, out)
		}
	}
	// The SDK in each venv, as pip install would put it (a .pth file
	// naming the SDK's directory, as an editable install does).
	for _, v := range []string{bare, withSys} {
		site, err := filepath.Glob(filepath.Join(v, "lib", "python3*", "site-packages"))
		if err != nil || len(site) != 1 {
			t.Fatalf("site-packages of %s: %v %v", v, site, err)
		}
		if err := os.WriteFile(filepath.Join(site[0], "regretbench-sdk.pth"), []byte(sdk+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dangling := filepath.Join(dir, "moved", "bin", "python3")
	if err := os.MkdirAll(filepath.Dir(dangling), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "deleted-venv", "bin", "python3"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, shebang string
		want          []string // in the warning; none: no warning
	}{
		{"nointerp", "/opt/no-such-venv/bin/python3", []string{"its #! line names /opt/no-such-venv/bin/python3, which does not exist: the plugin cannot start"}},
		{"dangling", dangling, []string{"its #! line names " + dangling + ", a dangling symbolic link"}},
		{"notinpath", "/usr/bin/env python3-no-such-version", []string{"its #! line runs python3-no-such-version from PATH, and PATH has none"}},
		{"nosdk", py, []string{"its interpreter " + py + " (#!" + py + ") fails an import: No module named 'regretbench'", "python3 -m venv --system-site-packages", "docs/install.md"}},
		{"bare", filepath.Join(bare, "bin", "python3"), []string{"(#!" + filepath.Join(bare, "bin", "python3") + ") fails an import: ", "No module named 'numpy'"}},
		{"venv", filepath.Join(withSys, "bin", "python3"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Each in a directory of its own, under the name it describes.
			plugins := filepath.Join(dir, "plugins-"+c.name)
			if err := os.Mkdir(plugins, 0o755); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(plugins, "bench-plugin-epsgreedy")
			if err := os.WriteFile(exe, []byte("#!"+c.shebang+"\n"+body), 0o755); err != nil {
				t.Fatal(err)
			}
			// --sandbox-read: the venvs' SDK is the repository's.
			stdout, stderr, code := bench(t, "--plugin-dir", plugins, "conform", "--quick", "--rule", "describe", "--sandbox-read", sdk, "epsgreedy")
			warned := strings.Contains(stderr, "bench: warning: plugin "+exe+": ")
			if c.want == nil {
				if warned || code != 0 {
					t.Errorf("exit %d, warned %v; want 0 and no warning\nstdout:\n%s\nstderr:\n%s", code, warned, stdout, stderr)
				}
				return
			}
			if !warned || code == 0 {
				t.Errorf("exit %d, warned %v; want a failure and a warning\nstderr:\n%s", code, warned, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestShimWarning: bench conform and bench plugins warn of a Python plugin
// whose interpreter is a version manager's shim (a script in a shims
// directory that runs the real interpreter from the manager's own tree,
// as pyenv's does) or, in any directory, a wrapper that cannot start
// under the sandbox: the sandbox lets the plugin read the shim but not
// what it runs, so it fails with "Permission denied". The same plugin
// conforms unconfined (--sandbox off), so the sandbox is what breaks it,
// and there a wrapper gets no warning.
func TestShimWarning(t *testing.T) {
	pythonWithGRPC(t)
	root := repoRoot(t)
	sdk := filepath.Join(root, "sdk", "python")
	example, err := os.ReadFile(filepath.Join(root, "examples", "python", "bench-plugin-epsgreedy"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(example), "\n")
	// A fake pyenv: shims/python3 runs libexec/pyenv, which runs the
	// system's Python with the SDK on its path.
	pyenv := filepath.Join(t.TempDir(), "pyenv")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pyenv, "libexec", "pyenv"), "#!/bin/sh\nshift 2\nPYTHONPATH="+sdk+" exec /usr/bin/python3 \"$@\"\n")
	wrapper := "#!/usr/bin/env bash\nset -e\nexec \"" + filepath.Join(pyenv, "libexec", "pyenv") + "\" exec python3 \"$@\"\n"
	for _, c := range []struct {
		name, dir string
		want      string // in the warning under the sandbox
		offWarns  bool   // warned at --sandbox off too
	}{
		{"shim", "shims", "is a shim, a script of a version manager", true},
		{"wrapper", "wrap", "cannot start (sandbox ", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			interp := filepath.Join(pyenv, c.dir, "python3")
			write(interp, wrapper)
			plugins := filepath.Join(t.TempDir(), "plugins")
			exe := filepath.Join(plugins, "bench-plugin-epsgreedy")
			write(exe, "#!"+interp+"\n"+body)
			prefix := "bench: warning: plugin " + exe + ": its interpreter " + interp + " (#!" + interp + ") "

			stdout, stderr, code := bench(t, "--plugin-dir", plugins, "conform", "--quick", "--rule", "describe", "--sandbox-read", sdk, "epsgreedy")
			if code == 0 || !strings.Contains(stderr, prefix) || !strings.Contains(stderr, c.want) {
				t.Errorf("conform under the sandbox: exit %d, want a failure and a warning %q...%q\nstdout:\n%s\nstderr:\n%s", code, prefix, c.want, stdout, stderr)
			}
			if !strings.Contains(stderr, "Permission denied") {
				t.Errorf("conform under the sandbox: stderr does not say why the plugin failed (Permission denied):\n%s", stderr)
			}
			stdout, stderr, code = bench(t, "--plugin-dir", plugins, "plugins", "--sandbox-read", sdk)
			if code != 3 || !strings.Contains(stderr, prefix) || !strings.Contains(stdout, "  warning: plugin "+exe+": ") || !strings.Contains(stderr, c.want) {
				t.Errorf("plugins under the sandbox: exit %d, want 3 and the warning %q...%q under the plugin and on stderr\nstdout:\n%s\nstderr:\n%s", code, prefix, c.want, stdout, stderr)
			}

			// The teeth: unconfined, the same plugin starts and conforms.
			stdout, stderr, code = bench(t, "--plugin-dir", plugins, "conform", "--quick", "--rule", "describe", "--sandbox", "off", "epsgreedy")
			if code != 0 {
				t.Errorf("conform --sandbox off: exit %d, want 0 (the plugin starts unconfined)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if warned := strings.Contains(stderr, prefix); warned != c.offWarns {
				t.Errorf("conform --sandbox off: warned %v, want %v\nstderr:\n%s", warned, c.offWarns, stderr)
			}
		})
	}
}
