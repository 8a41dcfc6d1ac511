package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// BakeoffAlpha is the level of the bake-off's per-scenario tests: 0.05,
// as Bietti, Agarwal and Langford use.
const BakeoffAlpha = 0.05

// Bakeoff is the pairwise summary of a suite of scenarios in the manner of
// the contextual bandit bake-off (Bietti, Agarwal & Langford, "A Contextual
// Bandit Bake-off", JMLR 2021, Table 3): for each ordered pair of policies,
// on how many scenarios the first is significantly better than the second.
//
// In each scenario where both policies ran, the pair is tested by the
// paired t-test of every table of bench (gate.PairedT, with its tail
// guard) on the per-replication final values of the metric; the row
// policy wins the scenario when its mean is lower and the two-sided p is
// below Alpha. As in the bake-off, the tests are not adjusted for
// multiplicity: the table counts scenarios, each judged at Alpha on its
// own, and is read as a summary of many datasets, not as one test.
// Policies are matched across scenarios by label.
type Bakeoff struct {
	Metric    string
	Alpha     float64
	Policies  []string // labels, in order of first appearance
	Scenarios []string // every scenario, in the order given
	// Wins[i][j] is the number of scenarios where policy i is
	// significantly better (lower) than policy j; Tested[i][j] the number
	// where the pair could be tested (both ran, at least 2 replications).
	Wins, Tested [][]int
}

// NewBakeoff computes the bake-off summary of files, one per scenario, on
// metric (lower is better) at level alpha.
func NewBakeoff(files []*results.File, metric string, alpha float64) (*Bakeoff, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("compare: bake-off alpha %v: want a value in (0, 1)", alpha)
	}
	b := &Bakeoff{Metric: metric, Alpha: alpha}
	for _, f := range files {
		b.Scenarios = append(b.Scenarios, f.Scenario.Name)
		for _, p := range f.Policies {
			if !slices.Contains(b.Policies, p.Label) {
				b.Policies = append(b.Policies, p.Label)
			}
		}
	}
	k := len(b.Policies)
	b.Wins, b.Tested = square(k), square(k)
	for _, f := range files {
		for i, li := range b.Policies {
			for j := i + 1; j < k; j++ {
				pi, pj := f.Policy(li), f.Policy(b.Policies[j])
				if pi == nil || pj == nil || !ok(pi, metric) || !ok(pj, metric) {
					continue
				}
				est, err := gate.PairedT(pj.Final[metric], pi.Final[metric])
				if err != nil {
					continue
				}
				b.Tested[i][j]++
				b.Tested[j][i]++
				// Two-sided p: twice the one-sided p in the direction
				// the difference points to (policy i - policy j).
				switch p := 2 * math.Min(est.PAbove(0), est.PBelow(0)); {
				case p >= alpha:
				case est.Delta < 0:
					b.Wins[i][j]++
				case est.Delta > 0:
					b.Wins[j][i]++
				}
			}
		}
	}
	return b, nil
}

func square(k int) [][]int {
	m := make([][]int, k)
	for i := range m {
		m[i] = make([]int, k)
	}
	return m
}

// Table is the bake-off's matrix: the cell of row i and column j is
// Wins[i][j] - Wins[j][i], the bake-off's "win-loss difference", followed
// by the two counts, "+3 (5/2)"; "-" where the pair was never tested.
func (b *Bakeoff) Table() *table.Table {
	t := &table.Table{
		Name: "bakeoff",
		Caption: fmt.Sprintf("Row policy against column policy over %d scenarios: the number of scenarios where the row is significantly better minus the number where it is significantly worse, then both counts (better/worse); "+
			"each scenario tested by the paired t-test (tail-guarded SE) on final %s, two-sided p < %s, not adjusted across scenarios (as in Bietti, Agarwal & Langford 2021, Table 3).",
			len(b.Scenarios), b.Metric, strconv.FormatFloat(b.Alpha, 'g', -1, 64)),
		Header: append([]string{"policy"}, b.Policies...),
	}
	t.Right = make([]bool, len(t.Header))
	for j := 1; j < len(t.Right); j++ {
		t.Right[j] = true
	}
	for i, li := range b.Policies {
		row := []string{li}
		for j := range b.Policies {
			switch {
			case i == j:
				row = append(row, "")
			case b.Tested[i][j] == 0:
				row = append(row, "-")
			default:
				w, l := b.Wins[i][j], b.Wins[j][i]
				row = append(row, fmt.Sprintf("%+d (%d/%d)", w-l, w, l))
			}
		}
		t.Append(row...)
	}
	return t
}

// SuiteTable is the policy x scenario table of a suite: each cell the mean
// final value of metric over replications ± its standard error, "failed"
// for a policy that failed there, "" where it did not run.
func SuiteTable(files []*results.File, metric string) *table.Table {
	t := &table.Table{
		Name:    "suite",
		Caption: fmt.Sprintf("Final %s per policy and scenario: mean over replications ± standard error.", metric),
		Header:  []string{"policy"},
	}
	var labels []string
	for _, f := range files {
		t.Header = append(t.Header, f.Scenario.Name)
		for _, p := range f.Policies {
			if !slices.Contains(labels, p.Label) {
				labels = append(labels, p.Label)
			}
		}
	}
	t.Right = make([]bool, len(t.Header))
	for j := 1; j < len(t.Right); j++ {
		t.Right[j] = true
	}
	for _, l := range labels {
		row := []string{l}
		for _, f := range files {
			p := f.Policy(l)
			switch {
			case p == nil:
				row = append(row, "")
			case !ok(p, metric):
				row = append(row, "failed")
			default:
				x := p.Final[metric]
				row = append(row, numfmt.PM(mean(x), se(x)))
			}
		}
		t.Append(row...)
	}
	return t
}
