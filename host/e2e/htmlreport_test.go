package e2e_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/results"
)

// TestRunRecordsProvenance: a run that writes --out records the command
// line, the host and the date beside the bench version; bench report
// shows them with the tables and figures, and refuses bad input with
// exit 2 naming the fault.
func TestRunRecordsProvenance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "quick.json")
	args := []string{"--scenario", "quick", "--runs", "6", "--horizon", "300", "-q", "--out", out, "--start-timeout", testStartTimeout}
	before := time.Now().UTC().Add(-time.Second)
	if _, stderr, code := bench(t, args...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	b := f.Bench
	if b == nil || b.Version == "" || b.Host != host {
		t.Fatalf("bench info %+v: want the version and host %q", b, host)
	}
	// bench() adds --plugin-dir before the arguments.
	if want := append([]string{"bench", "--plugin-dir", filepath.Join(binDir, "plugins")}, args...); !reflect.DeepEqual(b.Command, want) {
		t.Errorf("command %q, want %q", b.Command, want)
	}
	if d, err := time.Parse(time.RFC3339, b.Date); err != nil || d.Before(before.Truncate(time.Second)) || d.After(time.Now().UTC().Add(time.Second)) {
		t.Errorf("date %q: want RFC 3339 of this run (%v)", b.Date, err)
	}

	page := filepath.Join(dir, "quick.html")
	stdout, stderr, code := bench(t, "report", out, "--out", page)
	if code != 0 || strings.TrimSpace(stdout) != page {
		t.Fatalf("report: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	for _, want := range []string{"<h1>regretbench report: quick</h1>", `id="exp-1-quick-table-regret"`, `id="exp-1-quick-fig-separated"`,
		"--scenario quick --runs 6", b.Date, host, f.Policies[0].PluginSHA256, "<svg"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no --out", []string{"report", out}, "--out FILE.html is required"},
		{"no file", []string{"report", "--out", page}, "requires at least 1 arg"},
		{"missing file", []string{"report", filepath.Join(dir, "nope.json"), "--out", page}, "nope.json"},
		{"not results", []string{"report", page, "--out", filepath.Join(dir, "x.html")}, "quick.html"},
	} {
		if _, stderr, code := bench(t, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 naming %q\n%s", c.name, code, c.want, stderr)
		}
	}
}
