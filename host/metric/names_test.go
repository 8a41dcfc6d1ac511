package metric_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
)

// TestNamesAreTheList: Names is the constants in report order, Index finds
// each, and Check refuses anything else naming them all.
func TestNamesAreTheList(t *testing.T) {
	want := [metric.Count]string{metric.Regret, metric.Underestimation, metric.RegretUnder, metric.RegretNotUnder}
	if metric.Names != want {
		t.Errorf("Names = %v, want %v", metric.Names, want)
	}
	for i, name := range metric.Names {
		if j, ok := metric.Index(name); !ok || j != i {
			t.Errorf("Index(%q) = %d, %v; want %d", name, j, ok, i)
		}
		if err := metric.Check(name); err != nil {
			t.Errorf("Check(%q): %v", name, err)
		}
	}
	for _, bad := range []string{"", "Regret", "regrets", "diag:kkt_gap"} {
		err := metric.Check(bad)
		if err == nil {
			t.Errorf("Check(%q) accepted", bad)
			continue
		}
		for _, name := range metric.Names {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("Check(%q) = %v does not name %s", bad, err, name)
			}
		}
	}
	if got := metric.List(); got != "regret, underestimation, regret_under or regret_not_under" {
		t.Errorf("List() = %q", got)
	}
}

func mean(x []float64) float64 { return metric.Summarize(x).Mean }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestEveryConsumerHandlesEveryName: every package that names, reads or
// compares metrics handles each name of Names, and each as that metric
// (not another's series or values): results (Policy.Metric, the JSON
// tags, Summarize), report (the text tables, the summary table, the CSV),
// compare, gate and ranktest.
func TestEveryConsumerHandlesEveryName(t *testing.T) {
	f, err := results.ReadFile("../report/testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	const label, base = "TS", "ReMaxGrad M=2"
	var p *results.Policy
	for _, q := range f.Policies {
		if q.Label == label {
			p = q
		}
	}
	// The fixture's metrics differ, so that a name read as another's
	// metric is caught.
	seen := map[float64]string{}
	for _, name := range metric.Names {
		m := mean(p.Final[name])
		if other, dup := seen[m]; dup {
			t.Fatalf("fixture: %s and %s have the same mean final %v", name, other, m)
		}
		seen[m] = name
	}

	var csvOut, tables bytes.Buffer
	if err := report.CSV(&csvOut, f); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Tables(&tables, f); err != nil {
		t.Fatal(err)
	}
	var headers []string
	for _, tab := range report.TableData(f, nil) {
		headers = append(headers, tab.Header...)
	}
	summary := report.SummaryTable([]*results.File{f})

	for i, name := range metric.Names {
		t.Run(name, func(t *testing.T) {
			// results: the series of the name, whose JSON key is the name.
			s, err := p.Metric(name)
			if err != nil {
				t.Fatalf("Policy.Metric: %v", err)
			}
			var doc map[string]json.RawMessage
			b, _ := json.Marshal(p)
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			var js results.Series
			if err := json.Unmarshal(doc[name], &js); err != nil || !slices.Equal(js.Mean, s.Mean) {
				t.Errorf("JSON key %q holds %v (%v), Metric(%q) the series %v", name, js.Mean, err, name, s.Mean)
			}
			if n := len(s.Mean) - 1; !near(s.Mean[n], mean(p.Final[name])) {
				t.Errorf("Metric(%q) ends at %v, its finals average %v", name, s.Mean[n], mean(p.Final[name]))
			}
			// results.Summarize fills the series and finals of the name
			// from its traces.
			traces := map[string][][]float64{}
			for j, n := range metric.Names {
				traces[n] = [][]float64{{float64(j), float64(j) + 2}}
			}
			var q results.Policy
			q.Summarize([]int{1}, traces, nil, false)
			if qs, _ := q.Metric(name); len(qs.Mean) != 1 || qs.Mean[0] != float64(i)+1 || !slices.Equal(q.Final[name], traces[name][0]) {
				t.Errorf("Summarize: %s = %v, finals %v; want mean %d", name, qs.Mean, q.Final[name], i+1)
			}

			// report: a column of the tables and of the summary table,
			// rows of the CSV.
			if !slices.Contains(headers, name) {
				t.Errorf("report tables: no %s column in %v", name, headers)
			}
			if summary.Header[2+i] != name {
				t.Errorf("summary table column %d is %q, want %s", 2+i, summary.Header[2+i], name)
			}
			n := 0
			for _, r := range rows {
				if r[2] == name {
					n++
				}
			}
			if n == 0 {
				t.Errorf("CSV: no row of %s", name)
			}

			// compare, gate and ranktest compare the finals of the name.
			c, err := compare.Compute(f, compare.Spec{Policies: []string{label}, Baselines: []string{base}}, compare.Options{Metric: name, Alpha: 0.01})
			if err != nil {
				t.Fatalf("compare: %v", err)
			}
			if c.Metric != name || !near(c.Policies[0].Mean, mean(p.Final[name])) {
				t.Errorf("compare: metric %q, mean %v; want %s, %v", c.Metric, c.Policies[0].Mean, name, mean(p.Final[name]))
			}
			var w bytes.Buffer
			if err := compare.Write(&w, c, report.FormatTable); err != nil || !strings.Contains(w.String(), ": "+name+" at T=") {
				t.Errorf("compare table (%v):\n%s", err, w.String())
			}
			g, err := gate.Compare(f, f, gate.Options{Metric: name, Margin: 0.05, Alpha: 0.01})
			if err != nil {
				t.Fatalf("gate: %v", err)
			}
			for _, r := range g.Rows {
				if r.Label == label && !near(r.Base.Mean, mean(p.Final[name])) {
					t.Errorf("gate: baseline mean %v, want %v", r.Base.Mean, mean(p.Final[name]))
				}
			}
			a := ranktest.Across([]*results.File{f, f}, name, 0.05)
			if a.Metric != name || !slices.Contains(a.Policies, label) {
				t.Errorf("ranktest: metric %q, policies %v", a.Metric, a.Policies)
			}
		})
	}
	if _, err := p.Metric("regrets"); err == nil || err.Error() != metric.Check("regrets").Error() {
		t.Errorf("Policy.Metric(regrets) = %v, want metric.Check's error", err)
	}
	if err := (gate.Options{Metric: "regrets", Alpha: 0.01}).Check(); err == nil {
		t.Error("gate accepts metric regrets")
	}
}
