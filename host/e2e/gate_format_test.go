package e2e_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// gateJSON is the part of bench gate --format json the tests read.
type gateJSON struct {
	Metric      string   `json:"metric"`
	Paired      bool     `json:"paired"`
	Regressions []string `json:"regressions"`
	Failures    []string `json:"failures"`
	Rows        []struct {
		Label   string   `json:"label"`
		Verdict string   `json:"verdict"`
		Delta   *float64 `json:"delta"`
		Lo      *float64 `json:"ci_lo"`
		Hi      *float64 `json:"ci_hi"`
		P       *float64 `json:"p"`
	} `json:"rows"`
}

// TestGateFormats: bench gate and the one-call form print the same
// verdicts as a table, as Markdown and as JSON, with the same exit code.
func TestGateFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := []string{"--runs", "60", "--horizon", "300"}
	base := runTo(t, dir, "base.json", append([]string{"--scenario", gateScenario(t, "base", basePolicies)}, small...)...)
	reg := gateScenario(t, "regressed", regressedPolicies)
	cur := runTo(t, dir, "cur.json", append([]string{"--scenario", reg}, small...)...)

	table, _, code := bench(t, "gate", base, cur)
	want := verdicts(t, table)
	if want["control"] != "same" || len(want) != 3 {
		t.Fatalf("table verdicts %v", want)
	}
	md, _, mdCode := bench(t, "gate", base, cur, "--format", "markdown")
	if mdCode != code || !strings.Contains(md, "**Gate on regret at T=300") || !strings.Contains(md, "| control ") || strings.Contains(md, "+---") {
		t.Errorf("markdown: exit %d (table %d)\n%s", mdCode, code, md)
	}
	for l, v := range want {
		if !strings.Contains(md, "| "+l+" ") || !strings.Contains(md, v) {
			t.Errorf("markdown lacks %s %s", l, v)
		}
	}
	out, _, jsCode := bench(t, "gate", base, cur, "--format", "json")
	var doc gateJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	got := map[string]string{}
	var worse []string
	for _, r := range doc.Rows {
		got[r.Label] = r.Verdict
		if r.Verdict == "worse" {
			worse = append(worse, r.Label)
		}
		if r.Delta == nil || r.Lo == nil || r.Hi == nil || r.P == nil || *r.Lo > *r.Delta || *r.Delta > *r.Hi {
			t.Errorf("json row %+v: want delta inside its CI and a p", r)
		}
	}
	if jsCode != code || !reflect.DeepEqual(got, want) || !doc.Paired || doc.Metric != "regret" || !reflect.DeepEqual(append([]string{}, worse...), append([]string{}, doc.Regressions...)) {
		t.Errorf("json: exit %d (table %d), verdicts %v (table %v), regressions %v\n%s", jsCode, code, got, want, doc.Regressions, out)
	}
	if _, stderr, code := bench(t, "gate", base, cur, "--format", "csv"); code != 2 || !strings.Contains(stderr, `--format "csv"`) {
		t.Errorf("--format csv: exit %d\n%s", code, stderr)
	}

	// One call: the verdict follows --format markdown, or --gate-format.
	args := append([]string{"-q", "--scenario", reg, "--baseline", base}, small...)
	out, _, c := bench(t, append(args, "--format", "markdown")...)
	if c != code || !strings.Contains(out, "**Gate on regret") || !strings.Contains(out, "| control ") {
		t.Errorf("one call, --format markdown: exit %d\n%s", c, out)
	}
	out, _, c = bench(t, append(args, "--gate-format", "json")...)
	i := strings.Index(out, "{")
	if c != code || i < 0 || json.Unmarshal([]byte(out[i:]), &doc) != nil || len(doc.Rows) != 3 {
		t.Errorf("one call, --gate-format json: exit %d\n%s", c, out)
	}
	if _, stderr, c := bench(t, append(args, "--gate-format", "yaml")...); c != 2 || !strings.Contains(stderr, `--gate-format "yaml"`) {
		t.Errorf("--gate-format yaml: exit %d\n%s", c, stderr)
	}
}
