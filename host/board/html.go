package board

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/internal/markupsafe"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
)

// Alpha is the board's family-wise error rate: of the Holm-adjusted
// paired comparisons, of the critical difference of the mean ranks, and
// 1 - the level of the confidence intervals.
const Alpha = 0.05

// htmlPage is what the board page shows.
type htmlPage struct {
	Name       string
	Round      *Round
	Heads      []string // the score columns
	Rows       []htmlRow
	Ranks      *ranktest.Analysis
	Pairs      []htmlPairs
	Alpha      float64
	CI         string // the confidence level, in percent
	Note       string
	HasResults bool
	// On a board with a public part, after the reveal: what the ranking
	// is over (Part), and the public part's table.
	Part, PublicPart string
	PublicHeads      []string
	PublicRows       []htmlRow
}

type htmlRow struct {
	Rank, Submission, Index   string
	Submitter, Plugin         string
	Cells                     []string // per scenario: mean regret and CI
	MeanRank                  string
	Sandbox, Audit, Submitted string
	Outcome, Reason           string
	Link                      string
	Failed                    bool
}

type htmlPairs struct {
	Scenario string
	Labels   []string
	Cells    [][]string // [row][col]: row against col
}

// HTML writes the board as one static page: the round (commitment, and
// the seed once revealed), the standings (rank, mean final regret with
// its CI per scenario, mean rank, sandbox, audit, submission time, a
// link to each row's attestation in the log, the outcome and why a run
// failed), after the reveal the mean ranks' critical difference and
// each scenario's paired comparisons of every entrant against every
// other (Holm-adjusted). It has no script, and its Content-Security-Policy
// forbids any; every string of a submission is text (html/template,
// host/internal/markupsafe for the characters HTML does not allow).
func (b *Board) HTML(w io.Writer) error {
	st, err := b.Standings()
	if err != nil {
		return err
	}
	round, err := b.Round()
	if err != nil {
		return err
	}
	p := htmlPage{Name: markupsafe.Line(b.Config.Name), Round: round, Alpha: Alpha, CI: fmt.Sprintf("%g", 100*(1-Alpha))}
	revealed := round != nil && round.Revealed != ""
	for _, h := range b.scoreHeads(revealed) {
		p.Heads = append(p.Heads, markupsafe.Line(h))
	}
	for _, sc := range b.Config.Suite {
		p.PublicHeads = append(p.PublicHeads, markupsafe.Line(sc.Name+" (public)"))
	}
	p.PublicHeads = append(p.PublicHeads, "public score")
	// After the reveal, the results files: CIs, ranks and comparisons.
	var fin *final
	if revealed {
		if fin, err = b.finalTables(st); err != nil {
			return fmt.Errorf("board html: %w", err)
		}
		p.Ranks, p.Pairs, p.HasResults = fin.Ranks, fin.Pairs, true
		p.Part, p.PublicPart = fin.Part, fin.PublicPart
	}
	switch {
	case revealed && b.Config.Public > 0:
		p.Note = "Ranked on " + fin.Part + ": the standings' means and confidence intervals, the mean ranks and the paired comparisons are over it alone. The public score, and the table of the public part below, are over " + fin.PublicPart + "."
	case revealed:
	case b.Config.Public > 0:
		p.Note = "The round is open: each score is over the public part of the replications, shown through the Ladder (a submitter's score changes only when a submission beats its best by the margin); the private part ranks the round once the seed is revealed."
	default:
		p.Note = "The round is open: the results files, and so the confidence intervals and the comparisons, are published with the seed."
	}
	files := map[int][]*results.File{}
	if fin != nil {
		files = fin.Files
	}
	for _, s := range st {
		r := s.Run
		row := htmlRow{
			Rank: "–", Submission: strconv.Itoa(r.Submission), Index: strconv.FormatInt(s.Index, 10),
			Submitter: markupsafe.Line(r.Submitter), Plugin: markupsafe.Line(r.Plugin),
			Sandbox: sandboxText(r), Audit: auditSummary(r), Submitted: r.Submitted,
			Outcome: r.Outcome, Reason: markupsafe.Line(r.Reason), MeanRank: "–",
			Link: fmt.Sprintf("log/entries/%08d.json", s.Index), Failed: r.Outcome != OutcomeOK,
		}
		if s.Rank > 0 {
			row.Rank = strconv.Itoa(s.Rank)
			row.MeanRank = fmt.Sprintf("%.2f", s.MeanRank)
		}
		if b.Config.Public > 0 {
			row.Cells = s.scoreCells(b.Config.Public, revealed)
			if fin != nil && fin.Cells[r.Submission] != nil {
				row.Cells = append(append([]string(nil), fin.Cells[r.Submission]...), row.Cells[len(row.Cells)-1])
				p.PublicRows = append(p.PublicRows, htmlRow{Submission: row.Submission, Submitter: row.Submitter, Plugin: row.Plugin,
					Cells: append(append([]string(nil), fin.Public[r.Submission]...), fmt.Sprintf("%.2f", s.Split.Score))})
			}
		}
		for si, sc := range r.Scenarios {
			if b.Config.Public > 0 {
				break
			}
			cell := regretText(sc)
			if fs := files[r.Submission]; fs != nil {
				if pol := fs[si].Policy(r.Plugin); pol != nil && len(pol.Regret.SE) > 0 {
					se := pol.Regret.SE[len(pol.Regret.SE)-1]
					cell += fmt.Sprintf(" ± %.2f", zHalf*se)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		p.Rows = append(p.Rows, row)
	}
	return boardPage.Execute(w, p)
}

// zHalf is the normal quantile of a two-sided (1 - Alpha) interval.
var zHalf = func() float64 {
	// Inverse of the normal CDF at 1 - Alpha/2 by bisection on math.Erfc.
	lo, hi := 0.0, 10.0
	for range 200 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(mid/math.Sqrt2) > Alpha/2 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}()

func pairsOf(cs *compare.Scenario, labels []string) htmlPairs {
	out := htmlPairs{Scenario: markupsafe.Line(cs.Name), Labels: labels}
	for _, l := range labels {
		row := make([]string, len(labels))
		for j, other := range labels {
			if other == l {
				row[j] = "—"
				continue
			}
			row[j] = "–"
			for _, pol := range cs.Policies {
				if pol.Label != l {
					continue
				}
				for _, d := range pol.Diffs {
					switch {
					case d.Baseline != other:
					case !d.Tested():
						row[j] = "not tested: " + markupsafe.Line(d.Note)
					default:
						row[j] = fmt.Sprintf("%s %+.2f [%.2f, %.2f] p=%.3g", d.Outcome, d.Delta, d.Lo, d.Hi, d.P)
					}
				}
			}
		}
		out.Cells = append(out.Cells, row)
	}
	return out
}

// WriteHTML writes the board page to path (index.html in the board's
// directory, where its links to the log lead).
func (b *Board) WriteHTML(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("board html: %w", err)
	}
	if err := b.HTML(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// DefaultHTML is where the board page goes by default.
func (b *Board) DefaultHTML() string { return filepath.Join(b.Dir, "index.html") }

var boardPage = template.Must(template.New("board").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Board {{.Name}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #bbb; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #eee; }
tr.failed td { color: #777; }
code { font-size: 0.9em; word-break: break-all; }
.reason { max-width: 40em; }
</style>
</head>
<body>
<h1>Board {{.Name}}</h1>
{{with .Round}}<p>Seed commitment <code>sha256:{{.Commitment}}</code>, made {{.Opened}} (log record {{.Index}}).
{{if .Revealed}}Seed <code>{{.Seed}}</code> revealed {{.Revealed}}.{{else}}The seed is not revealed yet.{{end}}</p>{{else}}<p>No round is open.</p>{{end}}
{{with .Note}}<p>{{.}}</p>{{end}}
<h2 id="standings">Standings</h2>
<p>Mean final regret{{if .HasResults}}, with its {{.CI}}% confidence interval{{end}}{{with .Part}}, over {{.}}{{end}}; rank by the mean rank over the suite. Every run ran under the strict sandbox with an audit; a failed run is listed with its reason, unranked. Each row's attestation is a signed in-toto statement in the board's log: check it with <code>bench verify</code>.</p>
<table id="standings-table">
<thead><tr><th>Rank</th><th>#</th><th>Submitter</th><th>Plugin</th>{{range .Heads}}<th>{{.}}</th>{{end}}<th>Mean rank</th><th>Sandbox</th><th>Audit</th><th>Submitted</th><th>Attestation</th><th>Outcome</th></tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Failed}} class="failed"{{end}}><td>{{.Rank}}</td><td>{{.Submission}}</td><td>{{.Submitter}}</td><td><code>{{.Plugin}}</code></td>{{range .Cells}}<td>{{.}}</td>{{end}}<td>{{.MeanRank}}</td><td>{{.Sandbox}}</td><td>{{.Audit}}</td><td>{{.Submitted}}</td><td><a href="{{.Link}}">record {{.Index}}</a></td><td class="reason">{{.Outcome}}{{with .Reason}}: {{.}}{{end}}</td></tr>
{{end}}</tbody>
</table>
{{if .PublicRows}}<h2 id="public">Public part</h2>
<p>Mean final regret with its {{.CI}}% confidence interval over {{.PublicPart}}, which the board showed during the round (through the Ladder); it does not rank the round.</p>
<table id="public-table">
<thead><tr><th>#</th><th>Submitter</th><th>Plugin</th>{{range .PublicHeads}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .PublicRows}}<tr><td>{{.Submission}}</td><td>{{.Submitter}}</td><td><code>{{.Plugin}}</code></td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{with .Ranks}}<h2 id="ranks">Mean ranks</h2>
{{if .Reason}}<p>No critical difference: {{.Reason}}</p>{{else}}<p>Mean ranks over {{len .Experiments}} scenarios{{with $.Part}}, each over {{.}}{{end}} (Friedman test); two entrants whose mean ranks differ by less than the critical difference {{printf "%.2f" .CD}} (Nemenyi, α = {{.Alpha}}) are not told apart.</p>{{end}}{{end}}
{{if .Pairs}}<h2 id="pairs">Paired comparisons</h2>
<p>Each cell: the row's final regret minus the column's, paired by replication (the same reward streams){{with .Part}} over {{.}}{{end}}, its {{.CI}}% confidence interval and Holm-adjusted p; win means the row's is significantly lower.</p>
{{range $p := .Pairs}}<h3>{{$p.Scenario}}</h3>
<table>
<thead><tr><th></th>{{range $p.Labels}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range $i, $row := $p.Cells}}<tr><th>{{index $p.Labels $i}}</th>{{range $row}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody>
</table>
{{end}}{{end}}
</body>
</html>
`))
