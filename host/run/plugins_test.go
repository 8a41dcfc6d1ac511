package run_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// TestWritePlugins lists a search path of real plugins: a shipped one with
// its SHA-256 and parameters, one shadowed by a later directory, one whose
// file name is not its Describe name (a warning, not a failure), one that
// is not executable (FAILED, the others still listed), and a directory that
// does not exist (skipped).
func TestWritePlugins(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	ts := filepath.Join(pluginDir, "bench-plugin-ts")
	link := func(dst string) {
		t.Helper()
		if err := os.Link(ts, dst); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(first, "bench-plugin-ts"))
	link(filepath.Join(first, "bench-plugin-renamed"))
	link(filepath.Join(second, "bench-plugin-ts"))
	if err := os.WriteFile(filepath.Join(second, "bench-plugin-broken"), []byte("not a plugin"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	path := registry.Path{{Path: first, Origin: registry.FromFlag}, {Path: second, Origin: registry.FromFlag}, {Path: missing, Origin: registry.FromEnv}}
	plan, err := sandbox.Config{Level: sandbox.Off}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var out, warn bytes.Buffer
	// A generous handshake timeout: it must not fire on a loaded machine.
	failed := run.WritePlugins(&out, &warn, path.List(), time.Minute, &plan)
	got := out.String()
	if !slices.Equal(failed, []string{"broken"}) {
		t.Errorf("failed = %q, want [broken]\n%s", failed, got)
	}
	sum, err := registry.SHA256(ts)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"plugin search path (sandbox " + plan.Layers.String() + "), first found wins:\n",
		"  " + first + "  (--plugin-dir): 2 plugin(s)\n",
		"  " + second + "  (--plugin-dir): 2 plugin(s)\n",
		"  " + missing + "  (BENCH_PLUGIN_PATH): does not exist, skipped\n",
		"\nbroken  FAILED  (" + filepath.Join(second, "bench-plugin-broken") + ")\n  error: ",
		"\n  from   --plugin-dir\n",
		"  path   " + filepath.Join(first, "bench-plugin-ts") + "  (--plugin-dir)\n  shadows " + filepath.Join(second, "bench-plugin-ts") + "  (--plugin-dir): found again, not used\n  sha256 " + sum + "\n",
		"\nrenamed ",
		"  warning: ",
		"  param  ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "  sha256 "+sum+"\n"); n != 2 {
		t.Errorf("%d described copies of ts, want 2 (ts and renamed):\n%s", n, got)
	}
	if warn.Len() != 0 {
		t.Errorf("warnings for a missing BENCH_PLUGIN_PATH entry: %q", warn.String())
	}
}

// TestDescribePlugin checks the data behind a listing entry: a plugin that
// describes itself has its Description and SHA-256; a file that is not
// executable has an error naming it, and neither.
func TestDescribePlugin(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bench-plugin-bad")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		wantErr string // "" : described
	}{
		{filepath.Join(pluginDir, "bench-plugin-klucb"), ""},
		{bad, bad},
	} {
		pl := registry.Plugin{Name: strings.TrimPrefix(filepath.Base(tc.path), registry.Prefix), Found: registry.Found{Path: tc.path}}
		d := run.DescribePlugin(pl, time.Minute, nil)
		if tc.wantErr == "" {
			if d.Err != nil || d.Desc == nil || d.Desc.Name != "klucb" || len(d.SHA256) != 64 {
				t.Errorf("%s: err %v, desc %+v, sha256 %q; want klucb described", tc.path, d.Err, d.Desc, d.SHA256)
			}
			continue
		}
		if d.Err == nil || !strings.Contains(d.Err.Error(), tc.wantErr) || d.Desc != nil || d.SHA256 != "" {
			t.Errorf("%s: err %v, desc %+v, sha256 %q; want an error naming %s and nothing else", tc.path, d.Err, d.Desc, d.SHA256, tc.wantErr)
		}
	}
}
