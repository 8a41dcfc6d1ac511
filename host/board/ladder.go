package board

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// A board with a public part (Config.Public > 0) splits each scenario's
// replications as Kaggle splits its holdout: the first Public are the
// public part, which the board shows during the round, and the others
// the private part, which ranks the round once it is revealed. The
// public board shows a submission's public score only through the Ladder
// (Blum and Hardt, "The Ladder: A Reliable Leaderboard for Machine
// Learning Competitions"): a submitter's shown score changes only when a
// submission beats its best by the margin, so that resubmitting cannot
// fit the public part. The attestations then carry no score (the log is
// public): the results files, bound by their SHA-256, hold them.

// Ladder returns, for scores in submission order (lower is better, NaN
// for a failed run), the score the board shows for each and whether it
// improved: a score below the best shown so far by more than margin is
// shown rounded to a multiple of margin (when margin > 0) and becomes
// the best; any other shows the best so far (+Inf before the first).
func Ladder(scores []float64, margin float64) (shown []float64, improved []bool) {
	best := math.Inf(1)
	for _, s := range scores {
		up := !math.IsNaN(s) && s < best-margin
		if up {
			best = s
			if margin > 0 {
				best = math.Round(s/margin) * margin
			}
		}
		shown = append(shown, best)
		improved = append(improved, up)
	}
	return shown, improved
}

// split are a run's scores on the parts of each scenario's replications.
type split struct {
	Public  []float64 // per scenario: the mean final regret over the public part
	Private []float64 // and over the private part
	Score   float64   // the mean of Public over the suite
}

// resultsPath is where submission n's results file of scenario name is:
// under runs/ after the reveal, under private/ before.
func (b *Board) resultsPath(n int, name string) string {
	p := b.Path("runs", strconv.Itoa(n), "results", name+".json")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return b.Path("private", "results", strconv.Itoa(n), name+".json")
}

// splitScores reads a passed run's results files and splits each
// scenario's final regrets into the public and private parts.
func (b *Board) splitScores(p *RunPredicate) (*split, error) {
	s := &split{}
	for _, sc := range p.Scenarios {
		path := b.resultsPath(p.Submission, sc.Name)
		f, err := results.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("board: %w", err)
		}
		pol := f.Policy(p.Plugin)
		if pol == nil {
			return nil, fmt.Errorf("board: %s: no policy %s", path, p.Plugin)
		}
		fin := pol.Final[metric.Regret]
		if len(fin) <= b.Config.Public {
			return nil, fmt.Errorf("board: %s: %d replications, no more than the public part's %d", path, len(fin), b.Config.Public)
		}
		s.Public = append(s.Public, mean(fin[:b.Config.Public]))
		s.Private = append(s.Private, mean(fin[b.Config.Public:]))
		s.Score += s.Public[len(s.Public)-1] / float64(len(p.Scenarios))
	}
	return s, nil
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
