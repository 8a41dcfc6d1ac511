package board

import (
	"fmt"
	"math"
	"strconv"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
)

// final is what the board shows after the reveal, from the results
// files: the confidence intervals, the mean ranks' analysis and the
// paired comparisons, all over the replications that rank the round (on
// a board with a public part, its private part only), and on such a
// board each scenario's mean and CI over the public part beside them.
type final struct {
	// Part names the replications the ranking's numbers are over: "" for
	// all of them; on a board with a public part, the private part.
	Part string
	// PublicPart names the public part; "" on a board without one.
	PublicPart string
	// Cells are, per submission that ran, each scenario's mean final
	// regret and the half-width of its CI over the private part (boards
	// with a public part only: the others show the attested mean and
	// the results file's standard error).
	Cells map[int][]string
	// Public are the same over the public part.
	Public map[int][]string
	Pairs  []htmlPairs
	Ranks  *ranktest.Analysis
	// Files are each submission's results files, per scenario.
	Files map[int][]*results.File
}

// label names an entrant in the comparisons.
func label(r *RunPredicate) string { return fmt.Sprintf("#%d %s", r.Submission, r.Plugin) }

// finalTables reads the results files of the passed runs in st (the
// round must be revealed) and computes the board's final tables.
func (b *Board) finalTables(st []Standing) (*final, error) {
	out := &final{Files: map[int][]*results.File{}}
	for _, s := range st {
		if s.Run.Outcome != OutcomeOK {
			continue
		}
		for _, sc := range s.Run.Scenarios {
			f, err := results.ReadFile(b.Path("runs", strconv.Itoa(s.Run.Submission), "results", sc.Name+".json"))
			if err != nil {
				return nil, fmt.Errorf("board: %w", err)
			}
			out.Files[s.Run.Submission] = append(out.Files[s.Run.Submission], f)
		}
	}
	lo, hi := 0, -1 // hi < 0: every replication
	if pub := b.Config.Public; pub > 0 {
		lo = pub
		runs := b.Config.Runs
		out.Part = fmt.Sprintf("the private part (replications %d–%d of each scenario)", pub+1, runs)
		out.PublicPart = fmt.Sprintf("the public part (replications 1–%d)", pub)
		out.Cells, out.Public = map[int][]string{}, map[int][]string{}
		for n, fs := range out.Files {
			for _, f := range fs {
				pol := f.Policies[0]
				out.Cells[n] = append(out.Cells[n], ciText(pol.Final[metric.Regret], pub, len(pol.Final[metric.Regret])))
				out.Public[n] = append(out.Public[n], ciText(pol.Final[metric.Regret], 0, pub))
			}
		}
	}
	// Per scenario: every entrant that ran, as one file, its final
	// values cut to the ranking's part.
	var merged []*results.File
	for si := range b.Config.Suite {
		var m *results.File
		for _, s := range st {
			fs := out.Files[s.Run.Submission]
			if fs == nil || si >= len(fs) {
				continue
			}
			f := fs[si]
			pol := f.Policy(s.Run.Plugin)
			if pol == nil {
				return nil, fmt.Errorf("board: submission %d's results of %s have no policy %s", s.Run.Submission, b.Config.Suite[si].Name, s.Run.Plugin)
			}
			if m == nil {
				c := *f
				c.Policies, c.Comparison = nil, nil
				m = &c
			}
			cut := *pol
			cut.Label = label(s.Run)
			cut.Final = map[string][]float64{}
			for k, v := range pol.Final {
				h := hi
				if h < 0 || h > len(v) {
					h = len(v)
				}
				if lo < h {
					cut.Final[k] = v[lo:h]
				}
			}
			m.Policies = append(m.Policies, &cut)
		}
		if m != nil {
			merged = append(merged, m)
		}
	}
	if len(merged) > 0 {
		out.Ranks = ranktest.Across(merged, metric.Regret, Alpha)
	}
	for _, m := range merged {
		var labels []string
		for _, pol := range m.Policies {
			labels = append(labels, pol.Label)
		}
		if len(labels) < 2 {
			continue
		}
		cs, err := compare.Compute(m, compare.Spec{Policies: labels}, compare.Options{Metric: metric.Regret, Alpha: Alpha})
		if err != nil {
			return nil, fmt.Errorf("board: comparing the entrants on %s: %w", m.Scenario.Name, err)
		}
		out.Pairs = append(out.Pairs, pairsOf(cs, labels))
	}
	return out, nil
}

// ciText is the mean of xs[lo:hi] and the half-width of its (1 - Alpha)
// normal confidence interval: "12.34 ± 0.56"; "-" for no values.
func ciText(xs []float64, lo, hi int) string {
	if hi > len(xs) || lo >= hi {
		return "-"
	}
	x := xs[lo:hi]
	m := mean(x)
	if len(x) < 2 {
		return fmt.Sprintf("%.2f", m)
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	se := math.Sqrt(ss / float64(len(x)-1) / float64(len(x)))
	return fmt.Sprintf("%.2f ± %.2f", m, zHalf*se)
}
