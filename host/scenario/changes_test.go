package scenario

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestChangesParse: every form of a changing environment, both families,
// and every malformed one refused with an error naming the file, the
// field and its line.
func TestChangesParse(t *testing.T) {
	const tail = "horizon: 100\nruns: 2\npolicies: [{plugin: ts}]\n"
	bern := "environment:\n  family: bernoulli\n  means: [0.9, 0.5, 0.1]\n"
	gauss := "environment:\n  means: [0.9, 0.5, 0.1]\n  noise_sd: 1\n"
	for _, c := range []struct {
		name, head, extra string
		err               string // "" when valid
	}{
		{"steps", bern, "  changes:\n    - {at: 30, means: [0.1, 0.5, 0.9]}\n    - {at: 60, means: [0.5, 0.9, 0.1]}\n", ""},
		{"steps at horizon", gauss, "  changes: [{at: 100, means: [5, -3, 2]}]\n", ""},
		{"drift", gauss, "  drift: [{at: 50, means: [0, 1, 2]}, {at: 100, means: [1, 1, 1]}]\n", ""},
		{"random", bern, "  random_changes: {rate: 0.001, means: {uniform: [0.1, 0.9]}}\n", ""},
		{"random gaussian", gauss, "  random_changes: {rate: 1, means: {uniform: [-2, 2]}}\n", ""},
		{"random point mass", bern, "  random_changes: {rate: 0.5, means: {uniform: [0.5, 0.5]}}\n", ""},

		{"at 1", bern, "  changes: [{at: 1, means: [0.1, 0.5, 0.9]}]\n", "x.yaml: environment.changes[0].at: 1 is outside (1, horizon 100] (round 1's means are environment.means) (line 4)"},
		{"at beyond", bern, "  changes: [{at: 101, means: [0.1, 0.5, 0.9]}]\n", "environment.changes[0].at: 101 is outside (1, horizon 100]"},
		{"not increasing", bern, "  changes:\n    - {at: 30, means: [0.1, 0.5, 0.9]}\n    - {at: 30, means: [0.5, 0.9, 0.1]}\n", "environment.changes[1].at: 30 is not greater than environment.changes[0].at = 30 (changes hold from round at on; points must be strictly increasing) (line 6)"},
		{"missing at", bern, "  changes: [{means: [0.1, 0.5, 0.9]}]\n", "environment.changes[0].at: required (the round, 2..horizon)"},
		{"missing means", bern, "  changes: [{at: 5}]\n", "environment.changes[0].means: required (one mean per arm)"},
		{"too few means", bern, "  changes: [{at: 5, means: [0.1, 0.5]}]\n", "environment.changes[0].means: 2 means for 3 arms (environment.means has 3) (line 4)"},
		{"bernoulli range", bern, "  changes: [{at: 5, means: [0.1, 1.5, 0.9]}]\n", "environment.changes[0].means[1]: 1.5 is outside [0, 1], the range of a bernoulli mean"},
		{"not finite", gauss, "  drift: [{at: 5, means: [0.1, .nan, 0.9]}]\n", "environment.drift[0].means[1]: must be finite, got NaN"},
		{"empty", bern, "  changes: []\n", "environment.changes: empty; omit the key for means that do not change"},
		{"unknown key", bern, "  changes: [{at: 5, mean: [0.1, 0.5, 0.9]}]\n", `unknown key "environment.changes[0].mean" (valid keys: at, means)`},
		{"fractional at", bern, "  changes: [{at: 5.5, means: [0.1, 0.5, 0.9]}]\n", "environment.changes[0].at: expected int, got number 5.5"},
		{"two kinds", bern, "  changes: [{at: 5, means: [0.1, 0.5, 0.9]}]\n  drift: [{at: 5, means: [0.1, 0.5, 0.9]}]\n", "environment.drift: give one of changes, drift and random_changes, not changes and drift"},
		{"drift not increasing", gauss, "  drift: [{at: 50, means: [0, 1, 2]}, {at: 20, means: [1, 1, 1]}]\n", "environment.drift[1].at: 20 is not greater than environment.drift[0].at = 50 (means move linearly"},
		{"rate zero", bern, "  random_changes: {rate: 0, means: {uniform: [0.1, 0.9]}}\n", "environment.random_changes.rate: want a number in (0, 1] (expected breakpoints per round), got 0"},
		{"rate big", bern, "  random_changes: {rate: 2, means: {uniform: [0.1, 0.9]}}\n", "environment.random_changes.rate: want a number in (0, 1]"},
		{"rate missing", bern, "  random_changes: {means: {uniform: [0.1, 0.9]}}\n", "environment.random_changes.rate: required"},
		{"means missing", bern, "  random_changes: {rate: 0.1}\n", "environment.random_changes.means: required"},
		{"random empty", bern, "  random_changes:\n", "environment.random_changes.rate: required"},
		{"no distribution", bern, "  random_changes: {rate: 0.1, means: {}}\n", "environment.random_changes.means: want {uniform: [lo, hi]}"},
		{"unknown distribution", bern, "  random_changes: {rate: 0.1, means: {beta: [1, 2]}}\n", `unknown key "environment.random_changes.means.beta" (valid keys: uniform)`},
		{"one bound", bern, "  random_changes: {rate: 0.1, means: {uniform: [0.1]}}\n", "environment.random_changes.means.uniform: want [lo, hi], two numbers, got 1"},
		{"lo above hi", bern, "  random_changes: {rate: 0.1, means: {uniform: [0.9, 0.1]}}\n", "environment.random_changes.means.uniform: lo 0.9 is greater than hi 0.1"},
		{"bound out of range", bern, "  random_changes: {rate: 0.1, means: {uniform: [0.1, 1.2]}}\n", "environment.random_changes.means.uniform[1]: 1.2 is outside [0, 1]"},
		// An overflow names the field that holds the largest mean, with
		// its line: not environment.means, which are small.
		{"overflow", gauss, "  changes: [{at: 5, means: [1e150, 0, 0]}]\n", "environment.changes[0].means[0]: too large: rewards reach about 1e+150"},
		{"overflow second change", gauss, "  changes: [{at: 5, means: [1, 0, 0]}, {at: 7, means: [0, 0, -1e150]}]\n", "environment.changes[1].means[2]: too large"},
		{"drift overflow", gauss, "  drift: [{at: 50, means: [0, 1, 2]}, {at: 100, means: [1, 1e150, 1]}]\n", "environment.drift[1].means[1]: too large: rewards reach about 1e+150"},
		{"random overflow hi", gauss, "  random_changes: {rate: 0.1, means: {uniform: [-2, 1e150]}}\n", "environment.random_changes.means.uniform[1]: too large"},
		{"random overflow lo", gauss, "  random_changes: {rate: 0.1, means: {uniform: [-1e150, 2]}}\n", "environment.random_changes.means.uniform[0]: too large"},
		{"means overflow beside a drift", "environment:\n  means: [1e150, 0.5, 0.1]\n  noise_sd: 1\n", "  drift: [{at: 50, means: [0, 1, 2]}]\n", "environment.means: too large"},
		{"noise overflow beside a drift", "environment:\n  means: [0.9, 0.5, 0.1]\n  noise_sd: 1e149\n", "  drift: [{at: 50, means: [0, 1, 2]}]\n", "environment.noise_sd: too large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(c.head+c.extra+tail))
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !s.Environment.Changing() {
					t.Error("Changing() = false")
				}
				// The canonical YAML reads back to the same scenario.
				out, err := s.YAML()
				if err != nil {
					t.Fatal(err)
				}
				back, err := Parse("x.yaml", out)
				if err != nil {
					t.Fatalf("reparsing:\n%s\n%v", out, err)
				}
				if !reflect.DeepEqual(back.Environment, s.Environment) {
					t.Errorf("round trip: %+v, want %+v", back.Environment, s.Environment)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v\nwant one containing %q", err, c.err)
			}
		})
	}
}

// TestChangesScaleAndHorizon: scale applies to every mean of a change,
// and a shorter horizon keeps the means of the rounds it keeps: changes
// after it dropped, drift cut at it on the same line.
func TestChangesScaleAndHorizon(t *testing.T) {
	const src = `environment:
  means: [1, 0]
  noise_sd: 1
  scale: 2
  %s
horizon: 1000
runs: 2
policies: [{plugin: ts}]
`
	s, err := Parse("x.yaml", []byte(fmt.Sprintf(src, "changes: [{at: 100, means: [0, 1]}, {at: 500, means: [1, 1]}]")))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.TrueChanges()); got != "[{100 [0 2]} {500 [2 2]}]" {
		t.Errorf("TrueChanges = %s", got)
	}
	if err := s.SetHorizon(300); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.Environment.Changes); got != "[{100 [0 1]}]" {
		t.Errorf("changes at horizon 300: %s", got)
	}
	if err := s.SetHorizon(50); err != nil || s.Environment.Changes != nil {
		t.Errorf("changes at horizon 50: %v, %v", s.Environment.Changes, err)
	}

	s, err = Parse("x.yaml", []byte(fmt.Sprintf(src, "drift: [{at: 101, means: [0, 2]}, {at: 901, means: [4, 2]}]")))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetHorizon(501); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.Environment.Drift); got != "[{101 [0 2]} {501 [2 2]}]" {
		t.Errorf("drift at horizon 501: %s", got)
	}
	if err := s.SetHorizon(51); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.Environment.Drift); got != "[{51 [0.5 1]}]" {
		t.Errorf("drift at horizon 51: %s", got)
	}
	if r := (&Scenario{Environment: Environment{Scale: 3, RandomChanges: &RandomChanges{Rate: 0.5, Means: &MeanDistribution{Uniform: []float64{-1, 2}}}}}).TrueRandomChanges(); fmt.Sprint(r.Means.Uniform) != "[-3 6]" || r.Rate != 0.5 {
		t.Errorf("TrueRandomChanges = %+v", r)
	}
}
