package cli

import (
	"reflect"
	"strings"
	"testing"
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
			p, err := parseWith(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Plugin != tc.plugin || p.Label != tc.label || !reflect.DeepEqual(p.Params, tc.params) {
				t.Errorf("got %+v, want plugin %q label %q params %v", p, tc.plugin, tc.label, tc.params)
			}
		})
	}
}
