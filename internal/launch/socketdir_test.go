package launch

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/sandbox"
)

// TestCheckSocketDir: a TMPDIR is refused exactly when a plugin's socket
// could be longer than the kernel takes (in go-plugin's plugin-dirN under
// TMPDIR, the plugin's private directory at every sandbox level), naming
// TMPDIR and what to do. Plan makes the check (TestPlan), once for every
// plugin a command launches.
func TestCheckSocketDir(t *testing.T) {
	room := MaxSocketPath - len("/plugin-dir") - 10 - len("/plugin") - 10 // bytes a TMPDIR may take
	for _, n := range []int{room, room + 1} {
		dir := "/" + strings.Repeat("d", n-1)
		t.Setenv("TMPDIR", dir)
		err := CheckSocketDir()
		if n <= room {
			if err != nil {
				t.Errorf("TMPDIR of %d bytes: %v", n, err)
			}
			continue
		}
		want := "TMPDIR " + dir + " is too long for a unix socket path (a plugin's socket would take up to " +
			strconv.Itoa(MaxSocketPath+1) + " bytes, at most " + strconv.Itoa(MaxSocketPath) + "): set TMPDIR to a shorter directory"
		if err == nil || err.Error() != want {
			t.Errorf("TMPDIR of %d bytes: %v, want %q", n, err, want)
		}
	}
}

// TestPlan: the sandbox's plan, unless the sandbox refuses the config or
// TMPDIR is too long for a plugin's socket under it.
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     sandbox.Config
		tmpdir  string
		wantErr string // "": the plan of cfg
	}{
		{"off", sandbox.Config{Level: sandbox.Off}, os.TempDir(), ""},
		{"long TMPDIR", sandbox.Config{Level: sandbox.Off}, "/" + strings.Repeat("d", MaxSocketPath), "is too long for a unix socket path"},
		{"missing read path", sandbox.Config{Level: sandbox.Auto, Read: []string{"/nonexistent/regretbench"}}, os.TempDir(), "/nonexistent/regretbench"},
	} {
		t.Setenv("TMPDIR", c.tmpdir)
		p, err := Plan(c.cfg)
		if c.wantErr == "" {
			want, werr := c.cfg.Plan()
			if err != nil || werr != nil || p.Level != want.Level || p.Layers != want.Layers {
				t.Errorf("%s: Plan = %+v, %v; want %+v, %v", c.name, p, err, want, werr)
			}
			continue
		}
		if p != nil || err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: Plan = %+v, %v; want the error %q", c.name, p, err, c.wantErr)
		}
	}
}
