package scenario

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestWriteShipped: two lines per shipped scenario, in order, the second
// naming its policies under a name column as wide as the longest name.
func TestWriteShipped(t *testing.T) {
	var b bytes.Buffer
	if err := WriteShipped(&b); err != nil {
		t.Fatal(err)
	}
	names := Shipped()
	width := 20
	for _, n := range names {
		width = max(width, len(n))
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2*len(names) {
		t.Fatalf("%d lines for %d scenarios:\n%s", len(lines), len(names), b.String())
	}
	for i, name := range names {
		sc, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%-*s K=%-3d T=%-6d runs=%-5d ", width, name, sc.K(), sc.Horizon, sc.Runs)
		if !strings.HasPrefix(lines[2*i], want) {
			t.Errorf("line %d = %q, want it to start %q", 2*i, lines[2*i], want)
		}
		if p := lines[2*i+1]; !strings.HasPrefix(p, strings.Repeat(" ", width)+" policies: "+sc.Policies[0].Label) {
			t.Errorf("line %d = %q, want the policies of %s under the name column", 2*i+1, p, name)
		}
	}
}
