package sandbox

// Detection: which layers this machine allows, found once per process by
// running the launcher in probe mode.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// detected is what this machine allows, found once per process.
var detected struct {
	once    sync.Once
	exe     string // this program, which the launcher re-executes; "" if unknown
	layers  Layers
	missing []string
}

// detect finds the layers the machine allows by running the launcher in
// probe mode: with every layer the kernel reports, then, as long as it
// fails, without the layer that failed.
func detect() (string, Layers, []string) {
	d := &detected
	d.once.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			d.missing = []string{fmt.Sprintf("the launcher (cannot find this program to re-execute: %v)", err)}
			return
		}
		d.exe = exe
		want := All
		if v, err := llsys.LandlockGetABIVersion(); err != nil || v < 1 {
			want &^= Landlock
			d.missing = append(d.missing, fmt.Sprintf("landlock (not enabled in this kernel: %v)", errOr(err, "ABI < 1")))
		}
		if !seccomp.Supported() {
			want &^= Seccomp
			d.missing = append(d.missing, "seccomp (not supported by this kernel)")
		}
		for want != 0 {
			failed, why := probeLayers(exe, want)
			if failed == 0 {
				break
			}
			want &^= failed
			d.missing = append(d.missing, fmt.Sprintf("%s (%s)", failed, why))
		}
		d.layers = want
	})
	return d.exe, d.layers, d.missing
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// probeLayers runs the launcher in probe mode under layers and returns the
// layers to give up when it fails, with the reason; 0 when it succeeded.
// The launcher names the layer that failed first in its error ("landlock:
// ..."; confine_linux.go), and only that layer is given up.
func probeLayers(exe string, layers Layers) (Layers, string) {
	dir, err := os.MkdirTemp("", "regretbench-sandbox-probe-")
	if err != nil {
		return layers, err.Error()
	}
	defer os.RemoveAll(dir)
	c, err := command(exe, spec{Path: exe, Dir: dir, Layers: layers, Write: []string{dir}, Probe: true}, os.Environ())
	if err != nil {
		return layers, err.Error()
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		if layers&Namespaces != 0 {
			return Namespaces, namespaceErr(err)
		}
		return layers, err.Error()
	}
	c.Stop()
	if err := c.Wait(); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), failPrefix))
		if msg == "" {
			msg = err.Error()
		}
		for _, n := range layerNames {
			if layers&n.l != 0 && strings.HasPrefix(msg, n.name+": ") {
				return n.l, strings.TrimPrefix(msg, n.name+": ")
			}
		}
		return layers, msg
	}
	return 0, ""
}

// namespaceErr says why new namespaces could not be made, in the terms of
// the setting to look at.
func namespaceErr(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Sprintf("no user namespace may be made here, user.max_user_namespaces is reached or 0: %v", err)
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return fmt.Sprintf("unprivileged user namespaces are not allowed here (kernel.unprivileged_userns_clone, or AppArmor's kernel.apparmor_restrict_unprivileged_userns): %v", err)
	}
	return err.Error()
}
