package run_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/sdk"
)

func TestParseWith(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		plugin string
		label  string
		params map[string]any
		err    string
	}{
		{spec: "ts", plugin: "ts", label: "ts", params: map[string]any{}},
		{spec: "bayesucb:c=1@Bayes-UCB c=1", plugin: "bayesucb", label: "Bayes-UCB c=1", params: map[string]any{"c": 1}},
		{spec: "ts:inflation=1.5,name=x", plugin: "ts", label: "ts", params: map[string]any{"inflation": 1.5, "name": "x"}},
		{spec: "p:on=true,s='1',f=1e3", plugin: "p", label: "p", params: map[string]any{"on": true, "s": "1", "f": 1000.0}},
		{spec: `p:s=a\,b\=c\@d\\e@L@x`, plugin: "p", label: "L@x", params: map[string]any{"s": `a,b=c@d\e`}},
		{spec: "p@a,b=c", plugin: "p", label: "a,b=c", params: map[string]any{}},
		{spec: "", err: "no plugin name"},
		{spec: "Ts", err: "invalid plugin name"},
		{spec: "ts:", err: "no parameter"},
		{spec: "ts:c", err: `"c" has no '=VALUE'`},
		{spec: "ts:=1", err: "no parameter name"},
		{spec: "ts:c=1,c=2", err: "given twice"},
		{spec: "ts:c=[1]", err: "not a scalar"},
		{spec: "ts@", err: "no label"},
		{spec: "ts@ x", err: "leading or trailing spaces"},
		{spec: `ts\`, err: "trailing backslash"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			p, ok := parseWith(t, tc.spec, tc.err)
			if !ok {
				return
			}
			if p.Plugin != tc.plugin || p.Label != tc.label || !reflect.DeepEqual(p.Params, tc.params) {
				t.Errorf("got %+v, want plugin %q label %q params %v", p, tc.plugin, tc.label, tc.params)
			}
		})
	}
}

// TestParseWithFeedback: feedback= sets the policy's own feedback mode in
// the forms of a scenario's feedback: (it is no plugin parameter), checked
// as a scenario file's are; without it the policy inherits the
// scenario's.
func TestParseWithFeedback(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want sdk.Feedback
		err  string
	}{
		{spec: "ts", want: sdk.Feedback{}},
		{spec: "ts:feedback=delay:100@TS d=100", want: sdk.Feedback{Kind: sdk.Delay, Delay: 100}},
		{spec: "ts:feedback=delay:0", want: sdk.Feedback{Kind: sdk.Delay}},
		{spec: "ts:inflation=2,feedback=geometric:5", want: sdk.Feedback{Kind: sdk.Geometric, Mean: 5}},
		{spec: "ts:feedback=geometric:2.5", want: sdk.Feedback{Kind: sdk.Geometric, Mean: 2.5}},
		{spec: "ts:feedback=batch:20,inflation=2", want: sdk.Feedback{Kind: sdk.Batch, Batch: 20}},
		{spec: "ts:feedback=batch:0", err: "feedback=batch:0: feedback.batch: want an int in 1.."},
		{spec: "ts:feedback=delay:1.5", err: "feedback.delay: want an int"},
		{spec: "ts:feedback=delay:-1", err: "feedback.delay: want an int in 0.."},
		{spec: "ts:feedback=geometric:-1", err: "feedback.delay.geometric"},
		{spec: "ts:feedback=poisson:3", err: `unknown mode "poisson"`},
		{spec: "ts:feedback=delay", err: "want delay:D, geometric:MEAN or batch:B"},
		{spec: "ts:feedback=delay:", err: "want delay:D"},
		{spec: "ts:feedback=immediate", err: "feedback=delay:0"},
		{spec: "ts:feedback=delay:1,feedback=delay:2", err: "feedback is given twice"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			p, ok := parseWith(t, tc.spec, tc.err)
			if !ok {
				return
			}
			if _, has := p.Params["feedback"]; has {
				t.Errorf("feedback passed to the plugin as a parameter: %v", p.Params)
			}
			got, err := p.Feedback.Mode()
			if err != nil || got != tc.want {
				t.Errorf("feedback %+v (%v), want %+v", got, err, tc.want)
			}
		})
	}
}

// parseWith parses spec and checks its error against wantErr: a substring
// of the error it must give, or "" for none. It reports whether spec
// parsed, so that the caller goes on to check the policy.
func parseWith(t *testing.T, spec, wantErr string) (scenario.Policy, bool) {
	t.Helper()
	p, err := run.ParseWith(spec)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one containing %q", err, wantErr)
		}
		return p, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return p, true
}
