package run_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/internal/latextest"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/seed"
)

// twoRuns is a paper run whose obd is the report package's fixture and
// whose movielens is the same file with another seed and the finals of
// ReMaxGrad M=2 and TS swapped (so its ranks differ), TS counted as
// added: two distinct experiments with a comparison section each.
func twoRuns(t *testing.T) *run.AllResults {
	t.Helper()
	played := paperPlayed(t)
	for i, pr := range run.PaperRuns {
		if pr.Scenario != "movielens" {
			continue
		}
		f, err := results.ReadFile("../report/testdata/small.json")
		if err != nil {
			t.Fatal(err)
		}
		f.Scenario.Seed = seed.Int(99)
		a, b := f.Policy("ReMaxGrad M=2"), f.Policy("TS")
		a.Final, b.Final = b.Final, a.Final
		// A policy only movielens has, first there: it shifts the ranks
		// within movielens, not the mean rank, which ranks the policies
		// of every experiment only.
		extra := *f.Policy("KL-UCB, c=0")
		extra.Label, extra.Final, extra.Distribution, extra.Params = "Extra", map[string][]float64{}, nil, map[string]any{"c": 1.0}
		for k, v := range f.Policy("KL-UCB, c=0").Final {
			extra.Final[k] = v
		}
		extra.Final["regret"] = []float64{0, 0, 0, 0, 0, 0, 0, 0}
		f.Policies = append(f.Policies, &extra)
		played.Files[i] = f
	}
	played.Added = []string{"TS"}
	return played
}

// TestMeanRankEverywhere: the mean rank of each policy is one number,
// ranktest's over the distinct experiments, in every output of bench
// paper: stdout, comparison.txt, .md, .csv, .json and .tex, paper.tex,
// index.html (the totals and the mean-rank table) and mean_ranks.svg. And
// every .tex written compiles with pdflatex and shows its numbers.
func TestMeanRankEverywhere(t *testing.T) {
	dir := t.TempDir()
	played := twoRuns(t)
	pw, stdout, stderr, _, _ := writePaper(t, dir, played, false)
	if pw.Failed != 0 {
		t.Fatalf("%d outputs failed: %s", pw.Failed, stderr)
	}
	var files []*results.File
	for _, name := range []string{"obd", "movielens"} {
		files = append(files, readFile(t, filepath.Join(dir, name+".json")))
	}
	a := ranktest.Across(files, "regret", compareDefaults.Alpha)
	if a.Friedman == nil || len(a.Policies) != 3 || !slices.Equal(a.LeftOut, []string{"Broken", "Extra"}) {
		t.Fatalf("analysis %+v, want the three policies that ran in both, Broken and Extra left out", a)
	}
	// obd ranks ReMaxGrad 1, TS 2, KL-UCB 3; movielens TS 1, ReMaxGrad 2.
	want := map[string]float64{"ReMaxGrad M=2": 1.5, "TS": 1.5, "KL-UCB, c=0": 3}
	for l, r := range want {
		if got, ok := a.MeanRank(l); !ok || got != r {
			t.Fatalf("mean rank of %s: %v, want %v", l, got, r)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// A line holding the label and its mean rank, as each format writes them.
	hasLine := func(where, text, label, rank string) {
		t.Helper()
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, label) && strings.Contains(line, rank) {
				return
			}
		}
		t.Errorf("%s: no line with %s and its mean rank %s", where, label, rank)
	}
	for l, r := range want {
		two := fmt.Sprintf("%.2f", r)
		hasLine("stdout", stdout, "| "+l, " "+two+" |")
		hasLine("comparison.txt", read("comparison.txt"), "| "+l, " "+two+" |")
		hasLine("comparison.md", read("comparison.md"), "| "+l, " "+two+" |")
		hasLine("comparison.tex", read("comparison.tex"), strings.ReplaceAll(l, ",", ","), " & "+two+" & ")
		hasLine("paper.tex", read("paper.tex"), l+" & ", two)
		html := read("index.html")
		for _, id := range []string{"comparison-totals", "mean-ranks-table"} {
			start := strings.Index(html, `id="`+id+`"`)
			if start < 0 {
				t.Fatalf("index.html has no #%s", id)
			}
			table := html[start : start+strings.Index(html[start:], "</table>")]
			hasLine("index.html #"+id, strings.ReplaceAll(table, "<tr>", "\n<tr>"), ">"+l+"</th>", ">"+two+"</td>")
		}
		hasLine("mean_ranks.svg", read("mean_ranks.svg"), l, two)
	}
	rows, err := csv.NewReader(strings.NewReader(read("comparison.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row[0] == "*" {
			if r, ok := want[row[1]]; ok && row[4] != strconv.FormatFloat(r, 'g', -1, 64) {
				t.Errorf("comparison.csv: %s mean rank %s, want %v", row[1], row[4], r)
			}
			if (row[1] == "Broken" || row[1] == "Extra") && row[4] != "" {
				t.Errorf("comparison.csv: Broken ranked %s, want none", row[4])
			}
		}
	}
	var sum compare.Summary
	if err := json.Unmarshal([]byte(read("comparison.json")), &sum); err != nil {
		t.Fatal(err)
	}
	for _, tot := range sum.Totals {
		if r, ok := want[tot.Label]; ok && (!tot.Ranked || tot.MeanRank != r) {
			t.Errorf("comparison.json: %+v, want mean rank %v", tot, r)
		}
	}
	if !strings.Contains(stdout, "Not ranked (missing from or failed in some experiment): Broken, Extra") {
		t.Errorf("stdout does not say Broken is not ranked:\n%s", stdout)
	}

	// Every .tex compiles and shows its numbers.
	for _, name := range []string{"obd.tex", "movielens.tex", "comparison.tex", "paper.tex"} {
		t.Run(name, func(t *testing.T) {
			text := latextest.Compile(t, read(name))
			latextest.Contains(t, text, "ReMaxGrad M=2", "KL-UCB, c=0")
			switch name {
			case "paper.tex":
				latextest.Contains(t, text, "Table 1", "Table 2", "1.50", "3.00")
			case "comparison.tex":
				latextest.Contains(t, text, "1.50", "3.00", "Holm-adjusted over the 3 comparisons")
			}
		})
	}
}

func readFile(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
