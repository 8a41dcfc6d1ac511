package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// scen is a one-scenario results file named name.
func scen(name string, ps ...*results.Policy) *results.File {
	f := file(ps...)
	f.Scenario.Name = name
	return f
}

func TestBakeoffCounts(t *testing.T) {
	base := []float64{1, 5, 9, 3, 4, 7}
	plus := func(c float64) []float64 {
		out := make([]float64, len(base))
		for i, v := range base {
			out[i] = v + c
		}
		return out
	}
	// noisy differs from base by differences whose mean is 0.1 and whose
	// spread is large: never significant.
	noisy := []float64{4, 2, 12.1, 0, 7, 4.5} // base + (3, -3, 3.1, -3, 3, -2.5)
	files := []*results.File{
		// A beats B by a constant: a win for A.
		scen("d1", pol("A", base...), pol("B", plus(1)...), pol("C", noisy...)),
		// B beats A.
		scen("d2", pol("A", plus(2)...), pol("B", base...), pol("C", noisy...)),
		// A beats B again; C failed here.
		scen("d3", pol("A", base...), pol("B", plus(0.5)...), failed("C")),
		// Only A and C ran; C is not significantly different.
		scen("d4", pol("A", base...), pol("C", noisy...)),
	}
	b, err := NewBakeoff(files, "regret", BakeoffAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Policies, ","); got != "A,B,C" {
		t.Fatalf("policies %s, want A,B,C", got)
	}
	for _, tc := range []struct {
		i, j         int
		wins, tested int
	}{
		{0, 1, 2, 3}, {1, 0, 1, 3},
		{0, 2, 0, 3}, {2, 0, 0, 3},
		{1, 2, 0, 2}, {2, 1, 0, 2},
	} {
		if b.Wins[tc.i][tc.j] != tc.wins || b.Tested[tc.i][tc.j] != tc.tested {
			t.Errorf("%s vs %s: %d wins over %d tested, want %d over %d", b.Policies[tc.i], b.Policies[tc.j],
				b.Wins[tc.i][tc.j], b.Tested[tc.i][tc.j], tc.wins, tc.tested)
		}
	}
	tab := b.Table()
	if got, want := tab.Rows[0][2], "+1 (2/1)"; got != want {
		t.Errorf("A vs B cell %q, want %q", got, want)
	}
	if got, want := tab.Rows[1][1], "-1 (1/2)"; got != want {
		t.Errorf("B vs A cell %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if err := tab.Render(&buf, table.Markdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "+1 (2/1)") {
		t.Errorf("markdown lacks the A vs B cell:\n%s", buf.String())
	}
}

func TestBakeoffNeverTested(t *testing.T) {
	b, err := NewBakeoff([]*results.File{scen("d1", pol("A", 1, 2)), scen("d2", pol("B", 1, 2))}, "regret", BakeoffAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Table().Rows[0][2]; got != "-" {
		t.Errorf("a pair that never met shows %q, want -", got)
	}
	if _, err := NewBakeoff(nil, "regret", 0); err == nil {
		t.Error("alpha 0 accepted")
	}
}

func TestSuiteTable(t *testing.T) {
	tab := SuiteTable([]*results.File{
		scen("d1", pol("A", 1, 3), failed("B")),
		scen("d2", pol("B", 2, 2)),
	}, "regret")
	want := [][]string{{"A", "2.00 ± 1.00", ""}, {"B", "failed", "2.00 ± 0"}}
	for i, row := range want {
		for j, cell := range row {
			if tab.Rows[i][j] != cell {
				t.Errorf("cell (%d, %d) = %q, want %q", i, j, tab.Rows[i][j], cell)
			}
		}
	}
	if got := strings.Join(tab.Header, ","); got != "policy,d1,d2" {
		t.Errorf("header %s", got)
	}
}
