package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// Table is one table of a report as data (host/table): what Write draws
// in text and Markdown, and what other renderers (the HTML report) lay
// out their own way. Its Name is "regret", "distribution", "separated",
// "diagnostics" or, for SummaryTable, "summary". Cells are plain text.
type Table = table.Table

// Title is the line above a results file's tables: scenario name, arms,
// horizon, replications (each by its index when a run replayed a few
// chosen ones, as bench run --replication does) and seed, the shard, and
// INCOMPLETE when the run was interrupted.
func Title(f *results.File) string {
	sc := f.Scenario
	runs := sc.Runs
	if ok := okPolicies(f); len(ok) > 0 {
		runs = len(ok[0].Final[metric.Regret]) // a shard's own count
	}
	title := fmt.Sprintf("%s: %s, T=%d, %d runs, seed %s", sc.Name, shape(f), sc.Horizon, runs, sc.Seed)
	if reps := f.Shard.Replications; f.Shard.Count == 1 && reps != nil && len(reps) <= maxNamedReplications {
		// Chosen replications replayed (bench run --replication I).
		what := "replication"
		if len(reps) != 1 {
			what += "s"
		}
		names := make([]string, len(reps))
		for i, r := range reps {
			names[i] = strconv.FormatUint(r, 10)
		}
		title = fmt.Sprintf("%s: %s, T=%d, %s %s of %d runs, seed %s", sc.Name, shape(f), sc.Horizon, what, strings.Join(names, ", "), sc.Runs, sc.Seed)
	}
	if f.Shard.Count > 1 {
		title += fmt.Sprintf(", shard %d/%d", f.Shard.Index, f.Shard.Count)
	}
	if s := f.Sandboxes(); s != "" { // "(as recorded, unverified)" when read from a file
		title += ", sandbox " + s
	}
	if !f.Complete {
		title += " (INCOMPLETE)"
	}
	return title
}

// maxNamedReplications is the most replications a title names one by
// one, when a file holds chosen replications of a run.
const maxNamedReplications = 10

// TableData returns the regret table (with a "regret t=N" column per round
// of at, each a checkpoint: see CheckAt), the distribution of the final
// regret over the replications, the separated-regret summary and, when a
// policy reports diagnostics, the diagnostics table of f.
//
// A contextual run's (Contextual) regret table has pv_loss in place of
// underestimation, and there is no separated-regret table: the
// underestimation metrics are not computed.
//
// When any policy's feedback is not immediate (a delayed or batched
// scenario), every table gets a "feedback" column after the policy: its
// mode ("delay 10", "batch 100") or "immediate", so that rows under
// different feedback are never read as alike.
func TableData(f *results.File, at []int) []Table {
	var tables []Table
	add := func(t Table, policies []*results.Policy) {
		if len(t.Rows) == 0 && t.Name != "regret" && t.Name != "separated" {
			return // no distribution or diagnostics to show
		}
		if hasFeedback(f) {
			t.Header = slices.Insert(t.Header, 1, "feedback")
			t.Right = slices.Insert(t.Right, 1, false)
			for j, r := range t.Rows {
				t.Rows[j] = slices.Insert(r, 1, feedbackName(policies[j].Feedback))
			}
		}
		tables = append(tables, t)
	}
	add(regretData(f, at))
	add(distributionData(f))
	if !Contextual(f) { // not computed in a contextual run
		add(separatedData(f))
	}
	add(diagnosticsData(f))
	return tables
}

// hasFeedback reports whether a policy of f has feedback other than
// immediate.
func hasFeedback(f *results.File) bool {
	for _, p := range f.Policies {
		if p.Feedback != "" {
			return true
		}
	}
	return false
}

// feedbackName is a policy's feedback mode as the tables show it.
func feedbackName(mode string) string {
	if mode == "" {
		return "immediate"
	}
	return mode
}

// regretData returns the regret table and the policy of each row.
//
// In a changing environment (plot.Dynamic) the regret is the dynamic
// regret, against the best arm of each round, and the header and caption
// say so.
func regretData(f *results.File, at []int) (t Table, policies []*results.Policy) {
	name, Name := metric.Regret, "Regret"
	if plot.Dynamic(f) {
		name, Name = "dynamic regret", "Dynamic regret"
	}
	t = Table{
		Name:    "regret",
		Caption: fmt.Sprintf("%s at T=%d (%s)", Name, f.Scenario.Horizon, overReplications(f)),
		Header:  []string{"policy"},
		Right:   []bool{false},
	}
	if len(at) > 0 {
		rounds := make([]string, len(at))
		for i, r := range at {
			rounds[i] = fmt.Sprintf("t=%d", r)
			t.Header = append(t.Header, name+" "+rounds[i])
			t.Right = append(t.Right, true)
		}
		t.Caption = fmt.Sprintf("%s at %s and T=%d (%s)", Name, strings.Join(rounds, ", "), f.Scenario.Horizon, overReplications(f))
	}
	second := metric.Underestimation
	if Contextual(f) {
		second = metric.PVLoss
		t.Caption = strings.Replace(t.Caption, Name+" at", Name+" (against the best arm for each context) and progressive-validation loss pv_loss at", 1)
	}
	t.Header = append(t.Header, name, second, "seconds", "status")
	t.Right = append(t.Right, true, true, true, false)
	for _, p := range f.Policies {
		row := []string{p.Label}
		if p.Status == results.StatusFailed {
			for range at {
				row = append(row, "-")
			}
			t.Rows = append(t.Rows, append(row, "-", "-", "-", "FAILED"))
			policies = append(policies, p)
			continue
		}
		for _, r := range at {
			m, se := seriesAt(p.Regret, p.Checkpoints, r)
			row = append(row, meanSE(p, m, se))
		}
		rm, rs := last(p.Regret)
		um, us := last(p.Under)
		if second == metric.PVLoss {
			um, us = math.NaN(), math.NaN() // a file without it: no number
			if p.PVLoss != nil {
				um, us = last(*p.PVLoss)
			}
		}
		t.Rows = append(t.Rows, append(row, meanSE(p, rm, rs), meanSE(p, um, us), fmt.Sprintf("%.1f", p.Seconds), p.Status))
		policies = append(policies, p)
	}
	return t, policies
}

// distributionData returns the table of the final regret's distribution
// over the replications (results.Quantiles), and the policy of each row:
// computed from the finals, so that files written before results recorded
// it show it too; no rows when no policy has results over two
// replications or more.
func distributionData(f *results.File) (t Table, policies []*results.Policy) {
	t = Table{
		Name:    "distribution",
		Caption: fmt.Sprintf("Distribution of the final regret at T=%d over the replications (empirical quantiles; bench run --replication I replays the worst)", f.Scenario.Horizon),
		Header:  []string{"policy", "p25", "median", "p75", "p95", "p99", "max", "worst replication"},
		Right:   []bool{false, true, true, true, true, true, true, true},
	}
	for _, p := range okPolicies(f) {
		q, ok := f.RegretQuantiles(p)
		if !ok || len(p.Final[metric.Regret]) < 2 {
			continue // one replication (bench run --replication): the regret table says it all
		}
		t.Rows = append(t.Rows, []string{p.Label, numfmt.Num(q.P25), numfmt.Num(q.Median), numfmt.Num(q.P75),
			numfmt.Num(q.P95), numfmt.Num(q.P99), numfmt.Num(q.Max), strconv.FormatUint(q.Argmax, 10)})
		policies = append(policies, p)
	}
	return t, policies
}

// separatedData returns the separated-regret table and the policy of each row.
func separatedData(f *results.File) (t Table, policies []*results.Policy) {
	t = Table{
		Name:    "separated",
		Caption: "Separated regret: rounds where the best arm's empirical mean was below the second-best mean",
		Header:  []string{"policy", metric.RegretUnder, metric.RegretNotUnder, "share under"},
		Right:   []bool{false, true, true, true},
	}
	if plot.Dynamic(f) {
		t.Caption = "Separated dynamic regret: rounds where the current best arm's empirical mean was below the current second-best mean"
	}
	for _, p := range okPolicies(f) {
		um, us := last(p.RegretUnder)
		nm, ns := last(p.RegretNot)
		t.Rows = append(t.Rows, []string{p.Label, meanSE(p, um, us), meanSE(p, nm, ns), shareUnder(p)})
		policies = append(policies, p)
	}
	return t, policies
}

// shareUnder is the share of p's final regret incurred while the best
// arm was underestimated: "36%", "<1%" for a share that is not zero but
// rounds to it, "-" when the regret is not positive.
func shareUnder(p *results.Policy) string {
	um, _ := last(p.RegretUnder)
	rm, _ := last(p.Regret)
	if !(rm > 0) {
		return "-"
	}
	share := numfmt.Percent(um/rm, 0, false)
	if um > 0 && share == "0%" {
		share = "<1%" // a share that is not zero never reads 0%
	}
	return share
}

// diagnosticsData returns the diagnostics table and the policy of each
// row; no rows when no policy reports a diagnostic.
func diagnosticsData(f *results.File) (t Table, policies []*results.Policy) {
	t = Table{
		Name:    "diagnostics",
		Caption: "Plugin diagnostics at the last checkpoint (mean ± standard error)",
		Header:  []string{"policy", "diagnostic", "value", "round"},
		Right:   []bool{false, false, true, true},
	}
	if oneReplicationFile(f) {
		t.Caption = "Plugin diagnostics at the last checkpoint (" + oneReplicationCaption + ")"
	}
	for _, p := range f.Policies {
		for _, name := range diagNames(p) {
			d := p.Diagnostics[name]
			n := len(d.Mean)
			if n == 0 {
				continue
			}
			t.Rows = append(t.Rows, []string{p.Label, name, meanSE(p, d.Mean[n-1], d.SE[n-1]), fmt.Sprint(d.Checkpoints[n-1])})
			policies = append(policies, p)
		}
	}
	return t, policies
}
