package run_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
)

// TestParseAdded: every --with spec becomes an added policy named as
// written; the first malformed one is an OptionError quoting it.
func TestParseAdded(t *testing.T) {
	got, err := run.ParseAdded([]string{"ts", "klucb:c=1@K"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Spec != "ts" || got[0].Policy.Label != "ts" || got[1].Spec != "klucb:c=1@K" || got[1].Policy.Label != "K" {
		t.Errorf("ParseAdded = %+v", got)
	}
	_, err = run.ParseAdded([]string{"ts", "Bad", "ts:"})
	var opt *run.OptionError
	if !errors.As(err, &opt) || opt.Option != run.OptWith || flagText(err) != `--with "Bad": invalid plugin name "Bad" (want [a-z0-9_-]+, the NAME of bench-plugin-NAME)` {
		t.Errorf("error %v, want an OptionError naming --with \"Bad\"", err)
	}
	if got, err := run.ParseAdded(nil); got != nil || err != nil {
		t.Errorf("ParseAdded(nil) = %v, %v", got, err)
	}
}

// TestComparison: --compare-to compares its policy with every other;
// otherwise the added policies are compared with the scenario's own, and
// without either there is nothing to compare. A --compare-to that is no
// policy, or that has none to compare with, is an InputError.
func TestComparison(t *testing.T) {
	pol := func(labels ...string) []scenario.Policy {
		var ps []scenario.Policy
		for _, l := range labels {
			ps = append(ps, scenario.Policy{Label: l, Plugin: "p"})
		}
		return ps
	}
	for _, tc := range []struct {
		name      string
		policies  []scenario.Policy // the scenario's, added ones included
		added     []scenario.Policy
		compareTo string
		want      *compare.Spec
		err       string
	}{
		{name: "nothing", policies: pol("A", "B")},
		{name: "with", policies: pol("A", "B", "X", "Y"), added: pol("X", "Y"),
			want: &compare.Spec{Policies: []string{"A", "B", "X", "Y"}}},
		{name: "compare-to", policies: pol("A", "B", "C"), compareTo: "B",
			want: &compare.Spec{Policies: []string{"B"}, Baselines: []string{"A", "C"}}},
		{name: "compare-to beats with", policies: pol("A", "B", "X"), added: pol("X"), compareTo: "A",
			want: &compare.Spec{Policies: []string{"A"}, Baselines: []string{"B", "X"}}},
		{name: "compare-to an added policy", policies: pol("A", "X"), added: pol("X"), compareTo: "X",
			want: &compare.Spec{Policies: []string{"X"}, Baselines: []string{"A"}}},
		{name: "no such policy", policies: pol("A", "B"), compareTo: "Z", err: `--compare-to "Z": no such policy in scenario s (have: A, B)`},
		{name: "alone", policies: pol("A"), compareTo: "A", err: `--compare-to "A": the scenario has no other policy to compare it with`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &scenario.Scenario{Name: "s", Policies: tc.policies}
			got, err := run.Comparison(sc, tc.added, tc.compareTo)
			if tc.err != "" {
				if run.ExitCode(err) != exitcode.Input || flagText(err) != tc.err {
					t.Fatalf("error %v, want the input error %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Comparison = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAttachComparison: a nil spec drops a comparison section the file
// had (a resumed file's); one that cannot be computed drops it too, with
// a warning, not an error.
func TestAttachComparison(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec *compare.Spec
		warn string
	}{
		{name: "no spec"},
		{name: "missing policy", spec: &compare.Spec{Policies: []string{"X"}, Baselines: []string{"A"}}, warn: "bench: warning: no comparison section: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &results.File{Comparison: []byte(`{"old":true}`)}
			var stderr bytes.Buffer
			if s := run.AttachComparison(f, tc.spec, compare.DefaultOptions, &stderr); s != nil {
				t.Errorf("AttachComparison = %+v, want nil", s)
			}
			if f.Comparison != nil {
				t.Errorf("the file keeps the comparison %s", f.Comparison)
			}
			if got := stderr.String(); (tc.warn == "") != (got == "") || !bytes.HasPrefix([]byte(got), []byte(tc.warn)) {
				t.Errorf("stderr %q, want %q...", got, tc.warn)
			}
		})
	}
}

// TestAddWith: the --with policies are appended to the scenario's, in
// order, once their plugins accept them; a malformed spec, an unknown
// plugin or parameter and a label already used are InputErrors naming
// the spec, and leave the scenario as it was.
func TestAddWith(t *testing.T) {
	for _, tc := range []struct {
		name   string
		specs  []string
		labels []string // the scenario's afterwards
		err    string
	}{
		{name: "none", labels: []string{"TS", "KL-UCB"}},
		{name: "two", specs: []string{"ts:inflation=2@TS x2", "klucb"}, labels: []string{"TS", "KL-UCB", "TS x2", "klucb"}},
		{name: "malformed", specs: []string{"ts", "ts:"}, err: `--with "ts:": ':' is followed by no parameter`},
		{name: "unknown plugin", specs: []string{"nosuch"}, err: `--with "nosuch": `},
		{name: "unknown parameter", specs: []string{"ts:bogus=1"}, err: `--with "ts:bogus=1": plugin ts: `},
		{name: "label used", specs: []string{"ts@KL-UCB"}, err: `--with "ts@KL-UCB": label "KL-UCB" is already used; add @LABEL to name this policy`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := small(t, "")
			var stderr bytes.Buffer
			added, err := run.AddWith(context.Background(), launcher(&stderr), sc, tc.specs)
			if tc.err != "" {
				if run.ExitCode(err) != exitcode.Input || !strings.HasPrefix(flagText(err), tc.err) {
					t.Fatalf("error %v, want an input error %q...", err, tc.err)
				}
				tc.labels = []string{"TS", "KL-UCB"}
			} else if err != nil {
				t.Fatal(err)
			} else if len(added) != len(tc.specs) {
				t.Errorf("AddWith returned %d policies, want %d", len(added), len(tc.specs))
			}
			if got := run.Labels(sc); !reflect.DeepEqual(got, tc.labels) {
				t.Errorf("the scenario's policies: %q, want %q", got, tc.labels)
			}
		})
	}
}

// TestInputs: a run's inputs are its scenario file (none for a shipped
// one), its baseline, the config file and the plugins found of its
// policies, in that order.
func TestInputs(t *testing.T) {
	plugins := registry.NewPath([]string{pluginDir}, "")
	ts, err := plugins.Find("ts")
	if err != nil {
		t.Fatal(err)
	}
	sc := small(t, "")
	sc.Policies[1].Plugin = "nosuch"
	for _, tc := range []struct {
		name, source string
		opts         run.Options
		want         [][2]string
	}{
		{"file", "dir/x.yaml", run.Options{Baseline: "b.json"}, [][2]string{{"the scenario file", "dir/x.yaml"}, {"the {Baseline}", "b.json"},
			{"the {Config} file", "bench.yaml"}, {`the plugin of policy "TS"`, ts}}},
		{"shipped", "embedded:two_arm.yaml", run.Options{}, [][2]string{{"the scenario file", ""}, {"the {Baseline}", ""},
			{"the {Config} file", "bench.yaml"}, {`the plugin of policy "TS"`, ts}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc.Source = tc.source
			if got := tc.opts.Inputs(sc, plugins, "bench.yaml"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Inputs = %q, want %q", got, tc.want)
			}
		})
	}
}
