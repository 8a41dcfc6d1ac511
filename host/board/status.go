package board

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Standing is a row of the board as shown: a recorded run and its rank
// (0 for a failed run, which is listed, unranked, after the ranked ones).
type Standing struct {
	Row
	Rank     int
	MeanRank float64 // its mean rank over the suite's scenarios
	// On a board with a public part: the run's scores on each part,
	// and during the round the score the Ladder shows and whether this
	// run improved its submitter's.
	Split    *split
	Shown    float64
	Improved bool
}

// Standings ranks the board's runs: each scenario ranks the runs that
// passed by their mean final regret (lowest first, ties sharing the mean
// rank), and a run's place is its mean rank over the suite; failed runs
// follow in log order. On a board with a public part (Config.Public),
// the runs are ranked during the round by the score the Ladder shows
// (see Ladder), and after the reveal by their mean ranks on the private
// part.
func (b *Board) Standings() ([]Standing, error) {
	rows, err := b.Rows()
	if err != nil {
		return nil, err
	}
	round, err := b.Round()
	if err != nil {
		return nil, err
	}
	revealed := round != nil && round.Revealed != ""
	var ok, failed []Standing
	for _, r := range rows {
		s := Standing{Row: r}
		if r.Run.Outcome == OutcomeOK {
			ok = append(ok, s)
		} else {
			failed = append(failed, s)
		}
	}
	val := func(i, si int) float64 { return *ok[i].Run.Scenarios[si].MeanRegret }
	if b.Config.Public > 0 {
		for i := range ok {
			if ok[i].Split, err = b.splitScores(ok[i].Run); err != nil {
				return nil, err
			}
		}
		val = func(i, si int) float64 { return ok[i].Split.Private[si] }
		if !revealed {
			b.ladder(ok)
			val = func(i, _ int) float64 { return ok[i].Shown }
		}
	}
	for si := range b.Config.Suite {
		idx := make([]int, len(ok))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(x, y int) bool { return val(idx[x], si) < val(idx[y], si) })
		for i := 0; i < len(idx); {
			j := i
			for j < len(idx) && val(idx[j], si) == val(idx[i], si) {
				j++
			}
			r := float64(i+j+1) / 2 // ranks i+1..j, averaged
			for k := i; k < j; k++ {
				ok[idx[k]].MeanRank += r / float64(len(b.Config.Suite))
			}
			i = j
		}
	}
	sort.SliceStable(ok, func(x, y int) bool { return ok[x].MeanRank < ok[y].MeanRank })
	for i := range ok {
		ok[i].Rank = i + 1
		if i > 0 && ok[i].MeanRank == ok[i-1].MeanRank {
			ok[i].Rank = ok[i-1].Rank
		}
	}
	return append(ok, failed...), nil
}

// ladder sets each passed run's shown public score: the Ladder over its
// submitter's runs, in log order.
func (b *Board) ladder(ok []Standing) {
	by := map[string][]int{}
	var order []string
	for i, s := range ok {
		if by[s.Run.Submitter] == nil {
			order = append(order, s.Run.Submitter)
		}
		by[s.Run.Submitter] = append(by[s.Run.Submitter], i)
	}
	for _, sub := range order {
		var scores []float64
		for _, i := range by[sub] {
			scores = append(scores, ok[i].Split.Score)
		}
		shown, up := Ladder(scores, b.Config.Margin)
		for k, i := range by[sub] {
			ok[i].Shown, ok[i].Improved = shown[k], up[k]
		}
	}
}

// scoreHeads are the score columns' headings: per scenario its mean
// final regret; on a board with a public part, during the round the one
// public score the Ladder shows, after it each scenario's private part
// and the public score.
func (b *Board) scoreHeads(revealed bool) []string {
	var h []string
	switch {
	case b.Config.Public > 0 && !revealed:
		return []string{"public score (Ladder)"}
	case b.Config.Public > 0:
		for _, s := range b.Config.Suite {
			h = append(h, s.Name+" (private)")
		}
		return append(h, "public score")
	}
	for _, s := range b.Config.Suite {
		h = append(h, s.Name)
	}
	return h
}

// scoreCells are a standing's score columns (scoreHeads).
func (s Standing) scoreCells(public int, revealed bool) []string {
	var c []string
	switch {
	case public > 0 && s.Split == nil:
		n := len(s.Run.Scenarios) + 1
		if !revealed {
			n = 1
		}
		for range n {
			c = append(c, "-")
		}
	case public > 0 && !revealed:
		c = append(c, fmt.Sprintf("%.2f", s.Shown))
		if !s.Improved {
			c[0] += " (not better by the margin)"
		}
	case public > 0:
		for _, v := range s.Split.Private {
			c = append(c, fmt.Sprintf("%.2f", v))
		}
		c = append(c, fmt.Sprintf("%.2f", s.Split.Score))
	default:
		for _, sc := range s.Run.Scenarios {
			c = append(c, regretText(sc))
		}
	}
	return c
}

// Status writes the board's state and standings for a terminal. Strings
// of submissions are quoted (%q), so that none reaches the terminal raw.
func (b *Board) Status(w io.Writer) error {
	round, err := b.Round()
	if err != nil {
		return err
	}
	st, err := b.Standings()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "board %s: suite %s", b.Config.Name, suiteNames(b.Config.Suite))
	if b.Config.Runs > 0 {
		fmt.Fprintf(w, ", %d replications", b.Config.Runs)
	}
	if b.Config.Horizon > 0 {
		fmt.Fprintf(w, ", horizon %d", b.Config.Horizon)
	}
	if b.Config.Public > 0 {
		fmt.Fprintf(w, ", the first %d public (Ladder margin %g)", b.Config.Public, b.Config.Margin)
	}
	fmt.Fprintf(w, "; audit %d; %d submissions per submitter\n", b.Config.Audit, b.Config.Limit)
	switch {
	case round == nil:
		fmt.Fprintln(w, "round: not open ('bench board open')")
	case round.Revealed == "":
		fmt.Fprintf(w, "round: open since %s; seed commitment sha256:%s\n", round.Opened, round.Commitment)
	default:
		fmt.Fprintf(w, "round: closed; seed %s revealed %s (commitment sha256:%s)\n", round.Seed, round.Revealed, round.Commitment)
	}
	revealed := round != nil && round.Revealed != ""
	if jobs, err := b.Jobs(); err != nil {
		return err
	} else if len(jobs) > 0 {
		staged := 0
		for _, j := range jobs {
			if j.Staged {
				staged++
			}
		}
		fmt.Fprintf(w, "queue: %d submissions not yet logged, %d of them staged by their jobs ('bench board jobs', 'bench board collect')\n", len(jobs), staged)
	}
	fin, err := b.finalIfRevealed(st, revealed)
	if err != nil {
		return err
	}
	if fin != nil && fin.Part != "" {
		fmt.Fprintf(w, "ranked on %s: the means with their %g%% confidence intervals, the mean ranks and the paired comparisons are over it alone; the public score and the public part's table are over %s\n", fin.Part, 100*(1-Alpha), fin.PublicPart)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"RANK", "#", "SUBMITTER", "PLUGIN"}
	for _, h := range b.scoreHeads(revealed) {
		head = append(head, strings.ToUpper(h))
	}
	head = append(head, "SANDBOX", "AUDIT", "SUBMITTED", "LOG", "OUTCOME")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, s := range st {
		fmt.Fprintln(tw, strings.Join(s.cells(fin.scoreCells(s, b.Config.Public, revealed), fmt.Sprintf("%q", s.Run.Submitter), fmt.Sprintf("%q", s.Run.Plugin), fmt.Sprintf("%q", s.Run.Reason)), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if fin == nil {
		return nil
	}
	if len(fin.Public) > 0 {
		fmt.Fprintf(w, "\npublic part's table, over %s; it does not rank the round:\n", fin.PublicPart)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(b.publicHeads(strings.ToUpper), "\t"))
		for _, s := range st {
			if c := fin.publicCells(s); c != nil {
				fmt.Fprintln(tw, strings.Join(append([]string{fmt.Sprint(s.Run.Submission), fmt.Sprintf("%q", s.Run.Submitter), fmt.Sprintf("%q", s.Run.Plugin)}, c...), "\t"))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, pr := range fin.Pairs {
		fmt.Fprintf(w, "\npaired comparisons on %s%s (row minus column, %g%% CI, Holm-adjusted p):\n", pr.Scenario, fin.over(), 100*(1-Alpha))
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\t"+strings.Join(quoteAll(pr.Labels), "\t"))
		for i, row := range pr.Cells {
			fmt.Fprintln(tw, fmt.Sprintf("%q\t", pr.Labels[i])+strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// finalIfRevealed is the final tables after the reveal; nil before.
func (b *Board) finalIfRevealed(st []Standing, revealed bool) (*final, error) {
	if !revealed {
		return nil, nil
	}
	return b.finalTables(st)
}

// over says which replications a table is over: "" for all of them.
func (f *final) over() string {
	if f == nil || f.Part == "" {
		return ""
	}
	return ", over " + f.Part
}

// scoreCells are a standing's score columns: its scoreCells, whose
// per-scenario values are, after the reveal on a board with a public
// part, the private part's means with their CIs.
func (f *final) scoreCells(s Standing, public int, revealed bool) []string {
	c := s.scoreCells(public, revealed)
	if f != nil && f.Cells[s.Run.Submission] != nil {
		c = append(append([]string(nil), f.Cells[s.Run.Submission]...), c[len(c)-1])
	}
	return c
}

// publicCells are a standing's row of the public part's table; nil for
// a run that did not pass.
func (f *final) publicCells(s Standing) []string {
	if f == nil || f.Public[s.Run.Submission] == nil || s.Split == nil {
		return nil
	}
	return append(append([]string(nil), f.Public[s.Run.Submission]...), fmt.Sprintf("%.2f", s.Split.Score))
}

// publicHeads are the public part's table's headings.
func (b *Board) publicHeads(cs func(string) string) []string {
	h := []string{"#", cs("Submitter"), cs("Plugin")}
	for _, sc := range b.Config.Suite {
		h = append(h, cs(sc.Name+" (public)"))
	}
	return append(h, cs("public score"))
}

// cells are a standing's columns, with the submission's strings given
// already escaped for the output format.
func (s Standing) cells(scores []string, submitter, plugin, reason string) []string {
	rank := "-"
	if s.Rank > 0 {
		rank = fmt.Sprint(s.Rank)
	}
	c := append([]string{rank, fmt.Sprint(s.Run.Submission), submitter, plugin}, scores...)
	outcome := s.Run.Outcome
	if s.Run.Reason != "" {
		outcome += ": " + reason
	}
	return append(c, sandboxText(s.Run), auditSummary(s.Run), s.Run.Submitted, fmt.Sprint(s.Index), outcome)
}

func regretText(sc ScenarioRun) string {
	if sc.MeanRegret == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *sc.MeanRegret)
}

func sandboxText(p *RunPredicate) string {
	seen := map[string]bool{}
	var out []string
	for _, sc := range p.Scenarios {
		if s := sc.Sandbox; s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}

func auditSummary(p *RunPredicate) string {
	res := "ok"
	for _, sc := range p.Scenarios {
		switch {
		case sc.Audit == nil:
			if res == "ok" {
				res = "none"
			}
		case !sc.Audit.OK:
			return "failed"
		}
	}
	return res
}

func suiteNames(s []SuiteScenario) string {
	var n []string
	for _, x := range s {
		n = append(n, x.Name)
	}
	return strings.Join(n, ", ")
}

// Markdown writes the standings as a markdown table, for a README. A
// submission's strings are escaped so that they stay text in one cell.
func (b *Board) Markdown(w io.Writer, attestationURL func(index int64) string) error {
	st, err := b.Standings()
	if err != nil {
		return err
	}
	round, err := b.Round()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "## Board %s\n\n", mdEscape(b.Config.Name))
	if round != nil {
		fmt.Fprintf(w, "Seed commitment `sha256:%s`, made %s", round.Commitment, round.Opened)
		if round.Revealed != "" {
			fmt.Fprintf(w, "; seed `%s` revealed %s", round.Seed, round.Revealed)
		}
		fmt.Fprint(w, ".\n\n")
	}
	head := []string{"Rank", "#", "Submitter", "Plugin"}
	revealed := round != nil && round.Revealed != ""
	fin, err := b.finalIfRevealed(st, revealed)
	if err != nil {
		return err
	}
	if fin != nil && fin.Part != "" {
		fmt.Fprintf(w, "Ranked on %s: the means with their %g%% confidence intervals, the mean ranks and the paired comparisons are over it alone; the public score and the public part's table are over %s.\n\n", mdEscape(fin.Part), 100*(1-Alpha), mdEscape(fin.PublicPart))
	}
	for _, h := range b.scoreHeads(revealed) {
		head = append(head, mdEscape(h))
	}
	head = append(head, "Sandbox", "Audit", "Submitted", "Attestation", "Outcome")
	mdRow := func(c []string) { fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | ")) }
	mdHead := func(h []string) {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(h, " | "), strings.Repeat(" --- |", len(h)))
	}
	mdHead(head)
	for _, s := range st {
		c := s.cells(fin.scoreCells(s, b.Config.Public, revealed), mdEscape(s.Run.Submitter), mdEscape(s.Run.Plugin), mdEscape(s.Run.Reason))
		c[len(c)-2] = fmt.Sprintf("[%d](%s)", s.Index, attestationURL(s.Index))
		mdRow(c)
	}
	if fin == nil {
		return nil
	}
	if len(fin.Public) > 0 {
		fmt.Fprintf(w, "\n### The public part\n\nOver %s; it does not rank the round.\n\n", mdEscape(fin.PublicPart))
		mdHead(b.publicHeads(mdEscape))
		for _, s := range st {
			if c := fin.publicCells(s); c != nil {
				mdRow(append([]string{fmt.Sprint(s.Run.Submission), mdEscape(s.Run.Submitter), mdEscape(s.Run.Plugin)}, c...))
			}
		}
	}
	for _, pr := range fin.Pairs {
		fmt.Fprintf(w, "\n### Paired comparisons on %s%s\n\nRow minus column, %g%% CI, Holm-adjusted p.\n\n", mdEscape(pr.Scenario), mdEscape(fin.over()), 100*(1-Alpha))
		h := []string{" "}
		for _, l := range pr.Labels {
			h = append(h, mdEscape(l))
		}
		mdHead(h)
		for i, row := range pr.Cells {
			mdRow(append([]string{mdEscape(pr.Labels[i])}, row...))
		}
	}
	return nil
}

// mdEscape makes s plain text in a markdown table cell: <, > and & are
// character references (so no HTML tag survives), every other ASCII
// punctuation character that markdown could read is backslash-escaped,
// and line breaks become spaces.
func mdEscape(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			sb.WriteByte(' ')
		case r == '<':
			sb.WriteString("&lt;")
		case r == '>':
			sb.WriteString("&gt;")
		case r == '&':
			sb.WriteString("&amp;")
		case r < 0x80 && strings.ContainsRune("\\`*_{}[]()#+-.!|~\"'=:;$%@^/", r):
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
