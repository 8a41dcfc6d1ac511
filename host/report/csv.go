package report

import (
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// CSVHeader is the header row of the CSV format.
var CSVHeader = []string{"scenario", "policy", "metric", "t", "mean", "se"}

// DiagPrefix prefixes a plugin diagnostic's name in the metric column of
// the CSV format ("diag:kkt_gap"), so a diagnostic can never be mistaken
// for one of the host's metrics.
const DiagPrefix = "diag:"

// DistPrefix prefixes a statistic of the final regret's distribution over
// the replications in the metric column of the CSV format
// ("dist:regret.p95", as the results file's distribution.regret.p95).
// Such a row is at the horizon, its mean column holds the statistic and
// its se column is empty; "dist:regret.argmax" holds the index of the
// worst replication.
const DistPrefix = "dist:"

// writeCSV writes one row per policy, metric and checkpoint:
//
//	scenario,policy,metric,t,mean,se
//	failure_mode,ReMax,regret,1,0,0
//
// Policies come in file order, then the four metrics of design §5 (in a
// contextual run regret and pv_loss: ShownMetrics), then
// the distribution of the final regret (metric "dist:regret.p25",
// "dist:regret.median", p75, p95, p99, max and argmax; see DistPrefix),
// then the policy's diagnostics by name (metric "diag:NAME", at the
// diagnostic's own checkpoints). Failed policies have no rows. Numbers are
// written in Go's shortest round-trip form; the se column is empty
// over one replication (bench run --replication I), where it is undefined; NaN and infinities as NaN, inf
// and -inf, which pandas.read_csv reads as floats with no options. Fields
// holding a comma or quote are quoted per RFC 4180. With at, only the rows
// at those rounds are kept.
func writeCSV(w io.Writer, f *results.File, at []int) error {
	keep := func(t int) bool { return len(at) == 0 || slices.Contains(at, t) }
	tab := Table{Header: CSVHeader}
	row := func(p *results.Policy, metric string, t int, mean, se float64) {
		seCell := formatFloat(se)
		if oneReplication(p) {
			seCell = "" // undefined over one replication, as meanSE says
		}
		tab.Append(f.Scenario.Name, p.Label, metric, strconv.Itoa(t), formatFloat(mean), seCell)
	}
	for _, p := range okPolicies(f) {
		for _, name := range ShownMetrics(f) { // regret and pv_loss in a contextual run
			s, err := p.Metric(name)
			if err != nil {
				return err
			}
			for i, t := range p.Checkpoints {
				if keep(t) {
					row(p, name, t, s.Mean[i], s.SE[i])
				}
			}
		}
		if q, ok := f.RegretQuantiles(p); ok && keep(f.Scenario.Horizon) {
			for _, st := range []struct {
				name  string
				value string
			}{{"p25", formatFloat(q.P25)}, {"median", formatFloat(q.Median)}, {"p75", formatFloat(q.P75)}, {"p95", formatFloat(q.P95)},
				{"p99", formatFloat(q.P99)}, {"max", formatFloat(q.Max)}, {"argmax", strconv.FormatUint(q.Argmax, 10)}} {
				tab.Append(f.Scenario.Name, p.Label, DistPrefix+metric.Regret+"."+st.name, strconv.Itoa(f.Scenario.Horizon), st.value, "")
			}
		}
		for _, name := range diagNames(p) {
			d := p.Diagnostics[name]
			for i, t := range d.Checkpoints {
				if keep(t) && i < len(d.Mean) && i < len(d.SE) {
					row(p, DiagPrefix+name, t, d.Mean[i], d.SE[i])
				}
			}
		}
	}
	return tab.Render(w, table.CSV)
}

func formatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
