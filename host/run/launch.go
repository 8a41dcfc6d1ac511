package run

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// Launcher returns the engine.Launcher that starts plugins found on the
// plugin search path dirs under the sandbox plan, checks the SHA-256 a
// scenario pins, fails a plugin whose handshake takes longer than
// startTimeout, and checks its Describe. A plugin that describes itself
// under another name than its file's is started, with a warning written
// to warn.
//
// The first launch of each plugin name states, on warn, each executable of
// that name later on the search path that the one found shadows
// (registry.Plugin.ShadowWarnings): a plugin named like a shipped one runs
// in its place, and the run says so, not only bench plugins.
func Launcher(dirs registry.Path, startTimeout time.Duration, plan *sandbox.Plan, warn io.Writer) engine.Launcher {
	var mu sync.Mutex
	warned := map[string]bool{}
	return func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		path, err := dirs.Find(p.Plugin)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", engine.ErrInput, err)
		}
		mu.Lock()
		if !warned[p.Plugin] {
			warned[p.Plugin] = true
			WarnShadowed(warn, dirs, p.Plugin)
		}
		mu.Unlock()
		// A FIFO, a device or a dangling link fails the policy (as a
		// file without an exec bit does) before anything opens it.
		sum, err := registry.SHA256(path)
		if err != nil {
			return nil, err
		}
		opts := launch.Options{StartTimeout: startTimeout, Sandbox: plan}
		if p.SHA256 != "" {
			if p.SHA256 != sum {
				return nil, fmt.Errorf("%w: plugin %s: SHA-256 is %s but the scenario pins sha256 %s; refusing to run it", engine.ErrInput, path, sum, p.SHA256)
			}
			opts.SHA256, _ = hex.DecodeString(p.SHA256)
		}
		c, err := launch.Launch(path, opts)
		if err != nil {
			return nil, err
		}
		d, err := c.Describe(ctx)
		if err != nil {
			c.Close()
			return nil, err
		}
		if v := c.Protocol(); d.ProtocolVersion != v {
			c.Close()
			return nil, fmt.Errorf("plugin %s: its Describe reports protocol version %d, but it negotiated version %d at the handshake", path, d.ProtocolVersion, v)
		}
		if err := DescribeErr(path, d); err != nil {
			// The plugin's fault, not the scenario's: only its policies fail.
			c.Close()
			return nil, err
		}
		if w := NameMismatch(p.Plugin, d); w != "" {
			fmt.Fprintf(warn, "bench: warning: plugin %s: %s\n", path, w)
		}
		return &engine.Plugin{Conn: c, Desc: d, SHA256: sum, Sandbox: c.Sandbox().String(), Limits: LimitsRecord(c.Limits())}, nil
	}
}

// LimitsRecord is l as a results file records it.
func LimitsRecord(l sandbox.Limits) *results.Limits {
	if l.By == "" {
		return nil
	}
	r := l.Record()
	return &results.Limits{Memory: r.Memory, Tasks: r.Tasks, Files: r.Files, Disk: r.Disk, DiskFiles: r.DiskFiles, By: r.By, Unlimited: r.Unlimited}
}

// WarnShadowed writes to w a line per executable of plugin name that the
// one dirs finds shadows (registry.Plugin.ShadowWarnings).
func WarnShadowed(w io.Writer, dirs registry.Path, name string) {
	if pl, ok := dirs.Lookup(name); ok {
		for _, line := range pl.ShadowWarnings() {
			fmt.Fprintf(w, "bench: warning: %s\n", line)
		}
	}
}

// DescribeErr reports a Describe answer bench cannot use: parameters of an
// unknown type, or defaults outside their own declared range. It blames the
// plugin at path, so that its policies fail (exit 3) and the scenario is
// not accused.
func DescribeErr(path string, d *client.Description) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("plugin %s: its Describe declares what bench cannot use: %w", path, err)
	}
	return nil
}

// NameMismatch returns a warning when the plugin installed as
// bench-plugin-NAME describes itself under another name, or "". It is a
// warning, not a refusal: renaming an executable is a legitimate way to
// install two versions of one plugin side by side (bench-plugin-remax and
// bench-plugin-remax-old), and results record the name the scenario used.
// Yet a mismatch can also mean a wrong file was copied in, so say so.
func NameMismatch(name string, d *client.Description) string {
	if d.Name == name {
		return ""
	}
	return fmt.Sprintf("it describes itself as %q, not %q as its file name says (a renamed copy? results record it as %q)", d.Name, name, name)
}
