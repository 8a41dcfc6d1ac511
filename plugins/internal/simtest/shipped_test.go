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

// TestNoHostDeps fails if a plugin package, or the SDK an author imports,
// links code of the host (module path .../host/): a plugin binary must
// carry the SDK and its own policy only.
func TestNoHostDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const host = "github.com/regretbench/regretbench/host/"
	for _, c := range []struct {
		pattern string
		allowed string // the one host package it may link, "" for none
	}{
		{"github.com/regretbench/regretbench/plugins/...", ""},
		// The shipped plugins' commands (go install .../cmd/...).
		{"github.com/regretbench/regretbench/cmd/bench-plugin-...", ""},
		{"github.com/regretbench/regretbench/sdk", ""},
		// The conformance kit plays the host's side of the protocol: it
		// links the host's client, and through it nothing else of the host.
		{"github.com/regretbench/regretbench/sdk/sdktest", host + "client"},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Deps}}", c.pattern).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.pattern, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, deps, _ := strings.Cut(line, " ")
			for _, d := range strings.Fields(strings.Trim(deps, "[]")) {
				if strings.HasPrefix(d, host) && d != c.allowed {
					t.Errorf("%s depends on host package %s (via go list -deps %s)", pkg, d, c.pattern)
				}
			}
		}
	}
}
