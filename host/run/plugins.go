package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// Described is a plugin of the search path as bench plugins lists it: its
// executable's SHA-256 and its Describe, or why it has neither.
type Described struct {
	registry.Plugin
	SHA256 string
	Desc   *client.Description // nil when Err is not
	Err    error               // why it could not be started or described, or what bench cannot use
}

// DescribePlugin hashes pl's executable, starts it under the sandbox plan,
// asks it to describe itself, stops it, and checks that bench can use what
// it declared.
func DescribePlugin(pl registry.Plugin, startTimeout time.Duration, plan *sandbox.Plan) Described {
	d := Described{Plugin: pl}
	// SHA256 refuses what is not a regular executable file from its
	// metadata, before opening it: a FIFO or a link to /dev/zero hung the
	// listing, and a dangling link was "plugin : stat : ..." without its
	// path.
	if d.SHA256, d.Err = registry.SHA256(pl.Path); d.Err != nil {
		return d
	}
	c, err := launch.Launch(pl.Path, launch.Options{StartTimeout: startTimeout, Sandbox: plan})
	if err != nil {
		d.Err = err
		return d
	}
	desc, err := c.Describe(context.Background())
	c.Close()
	if err != nil {
		d.Err = err
		return d
	}
	if d.Err = DescribeErr(pl.Path, desc); d.Err == nil {
		d.Desc = desc
	}
	return d
}

// WritePlugins writes bench plugins' listing of the search path l to w:
// its directories, then every plugin, described under the sandbox plan as
// it comes (DescribePlugin), or marked FAILED with the reason. A directory
// that cannot be read is also said on warn, as is a script whose #! line
// runs a version manager's shim or, for one that FAILED, an interpreter
// that cannot start (registry.ShimWarning, registry.ShebangWarnings). Everything a plugin declares,
// and the names of the files in a directory, is escaped (termsafe). It
// returns the escaped names of the plugins that FAILED.
func WritePlugins(w, warn io.Writer, l registry.Listing, startTimeout time.Duration, plan *sandbox.Plan) (failed []string) {
	esc := termsafe.String
	fmt.Fprintf(w, "plugin search path (sandbox %s), first found wins:\n", plan.Layers)
	fmt.Fprintf(w, "  limits per plugin: %s\n", plan.Limits)
	for _, d := range l.Dirs {
		state := fmt.Sprintf("%d plugin(s)", len(d.Names))
		switch {
		case errors.Is(d.Err, fs.ErrNotExist):
			state = "does not exist, skipped"
		case d.Err != nil:
			state = "cannot be read, skipped: " + d.Err.Error()
			fmt.Fprintf(warn, "bench: warning: plugin directory %s: %v\n", d.Dir, d.Err)
		}
		fmt.Fprintf(w, "  %s  (%s): %s\n", esc(d.Path), d.Origin, esc(state))
	}
	for _, pl := range l.Plugins {
		ok := writePlugin(w, DescribePlugin(pl, startTimeout, plan))
		if !ok {
			failed = append(failed, esc(pl.Name))
		}
		// A script whose #! line runs a shim, or an interpreter that
		// cannot start: say why, under the plugin and on warn. The start
		// check starts the plugin again, so only one that failed pays it.
		var warns []string
		if ok {
			if s := registry.ShimWarning(pl.Path); s != "" {
				warns = append(warns, s)
			}
		} else {
			warns = registry.ShebangWarnings(pl.Path, plan, startTimeout)
		}
		for _, s := range warns {
			fmt.Fprintf(w, "  warning: %s\n", esc(s))
			fmt.Fprintf(warn, "bench: warning: %s\n", esc(s))
		}
	}
	return failed
}

// writePlugin writes d's entry of the listing, and whether it described
// itself.
func writePlugin(w io.Writer, d Described) bool {
	esc := termsafe.String
	name, path := d.Name, d.Path
	if d.Err != nil {
		// Indent the quoted stderr lines under the mark.
		msg := strings.ReplaceAll(termsafe.Text(strings.TrimRight(d.Err.Error(), "\n")), "\n", "\n         ")
		fmt.Fprintf(w, "\n%s  FAILED  (%s)\n  error: %s\n", esc(name), esc(path), msg)
		fmt.Fprintf(w, "  from   %s\n", d.Dir.Origin)
		writeShadowed(w, d.Plugin)
		return false
	}
	desc := d.Desc
	fmt.Fprintf(w, "\n%s %s  protocol %d  %s\n  path   %s  (%s)\n", esc(name), esc(desc.Version), desc.ProtocolVersion, esc(desc.SDK), esc(path), d.Dir.Origin)
	writeShadowed(w, d.Plugin)
	fmt.Fprintf(w, "  sha256 %s\n", d.SHA256)
	if warn := NameMismatch(name, desc); warn != "" {
		fmt.Fprintf(w, "  warning: %s\n", esc(warn))
	}
	for _, p := range desc.Params {
		values := params.Range(p)
		if values == "" {
			values = "any"
		}
		fmt.Fprintf(w, "  param  %-20s %-6s default %-8s values %-14s %s\n", esc(p.Name), esc(string(p.Type)), esc(fmt.Sprint(p.Default)), esc(values), esc(p.Doc))
	}
	if len(desc.Diagnostics) > 0 {
		fmt.Fprintf(w, "  diagnostics %s\n", esc(strings.Join(desc.Diagnostics, ", ")))
	}
	return true
}

// writeShadowed writes a line per executable of the same name that pl
// shadows, later on the search path: it is never run while pl is there.
func writeShadowed(w io.Writer, pl registry.Plugin) {
	for _, s := range pl.Shadowed {
		fmt.Fprintf(w, "  shadows %s  (%s): found again, not used\n", termsafe.String(s.Path), s.Dir.Origin)
	}
}
