package simtest

import (
	"os/exec"
	"strings"
	"testing"
)

func TestShipped(t *testing.T) {
	for _, c := range []struct {
		name  string
		means []float64
		sd    float64
	}{
		{"two_arm", []float64{0.9, 0.8}, 0.15},
		{"two_arm.yaml", []float64{0.9, 0.8}, 0.15},
	} {
		means, sd := Shipped(t, c.name)
		if sd != c.sd || len(means) != len(c.means) {
			t.Fatalf("Shipped(%q) = %v, %v; want %v, %v", c.name, means, sd, c.means, c.sd)
		}
		for i := range means {
			if means[i] != c.means[i] {
				t.Fatalf("Shipped(%q) = %v, %v; want %v, %v", c.name, means, sd, c.means, c.sd)
			}
		}
	}
	if means, sd := Shipped(t, "movielens"); len(means) != 31 || means[21] != 0.91091 || sd != 1 {
		t.Fatalf("Shipped(movielens) = %d arms, arm 22 %v, sd %v; want 31, 0.91091, 1", len(means), means[21], sd)
	}
}

// TestNoHostDeps fails if a plugin package, the SDK an author imports or
// the conformance kit links code of the host (module path .../host/): a
// plugin binary must carry the SDK and its own policy only, and an author's
// tests the SDK and its kit only. No package under sdk/ imports host/, tests
// included: what both sides share (the client, the params rules, the
// delayed-feedback schedule) lives under internal/, which must not link the
// host either.
func TestNoHostDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const host = "github.com/regretbench/regretbench/host/"
	for _, c := range []struct {
		pattern string
		tests   bool // the packages' tests' dependencies too
	}{
		{"github.com/regretbench/regretbench/plugins/...", false},
		{"github.com/regretbench/regretbench/sdk/...", true},
		{"github.com/regretbench/regretbench/internal/...", true},
		// The shipped plugins' commands (go install .../cmd/...).
		{"github.com/regretbench/regretbench/cmd/bench-plugin-...", false},
	} {
		args := []string{"list", "-deps", "-f", "{{.ImportPath}} {{.Deps}}"}
		if c.tests {
			args = append(args, "-test")
		}
		out, err := exec.Command("go", append(args, c.pattern)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s %s: %v\n%s", strings.Join(args, " "), c.pattern, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, deps, _ := strings.Cut(line, " ")
			if strings.HasPrefix(pkg, host) {
				continue // a host package listed as a dependency is reported below
			}
			for _, d := range strings.Fields(strings.Trim(deps, "[]")) {
				if strings.HasPrefix(d, host) {
					t.Errorf("%s depends on host package %s (via go list -deps %s)", pkg, d, c.pattern)
				}
			}
		}
	}
}
