package results

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/seed"
)

// TestChangesRoundTrip: a results file records each form of change and
// reads back the same; records no run could write are refused, naming the
// field; and Diff tells apart changes that differ in one mean's last bit.
func TestChangesRoundTrip(t *testing.T) {
	file := func(s Scenario) *File {
		s.Name, s.Family, s.Arms, s.Horizon, s.Runs, s.Seed, s.Means = "c", "bernoulli", 2, 100, 1, seed.Int(1), []float64{0.9, 0.1}
		s.Checkpoints = []int{100}
		return &File{Schema: Schema, Scenario: s, Shard: Shard{Count: 1}, Complete: true, Policies: []*Policy{}}
	}
	for _, s := range []Scenario{
		{Changes: []Change{{At: 50, Means: []float64{0.1, 0.9}}, {At: 100, Means: []float64{0.5, 0.5}}}},
		{Drift: []Change{{At: 2, Means: []float64{0.1, 0.9}}}},
		{RandomChanges: &RandomChanges{Rate: 0.01, Means: MeanDistribution{Uniform: []float64{0.2, 0.8}}}},
	} {
		var b bytes.Buffer
		if err := file(s).Encode(&b); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(b.Bytes())
		if err != nil {
			t.Fatalf("%s\n%v", b.String(), err)
		}
		if !reflect.DeepEqual(back.Scenario, file(s).Scenario) {
			t.Errorf("round trip: %+v, want %+v", back.Scenario, s)
		}
	}
	for _, c := range []struct {
		s   Scenario
		err string
	}{
		{Scenario{Changes: []Change{{At: 1, Means: []float64{0.1, 0.9}}}}, "scenario.changes[0].at = 1"},
		{Scenario{Changes: []Change{{At: 101, Means: []float64{0.1, 0.9}}}}, "scenario.changes[0].at = 101"},
		{Scenario{Drift: []Change{{At: 5, Means: []float64{0.1, 0.9}}, {At: 5, Means: []float64{0.1, 0.9}}}}, "scenario.drift[1].at = 5"},
		{Scenario{Changes: []Change{{At: 5, Means: []float64{0.1}}}}, "scenario.changes[0]: 1 means for 2 arms"},
		{Scenario{Changes: []Change{}}, "scenario.changes: empty"},
		{Scenario{RandomChanges: &RandomChanges{Rate: 0, Means: MeanDistribution{Uniform: []float64{0, 1}}}}, "scenario.random_changes.rate = 0"},
		{Scenario{RandomChanges: &RandomChanges{Rate: 0.1, Means: MeanDistribution{Uniform: []float64{1, 0}}}}, "lo 1 > hi 0"},
		{Scenario{RandomChanges: &RandomChanges{Rate: 0.1}}, "want [lo, hi], got 0 numbers"},
		{Scenario{Changes: []Change{{At: 5, Means: []float64{0.1, 0.9}}}, Drift: []Change{{At: 5, Means: []float64{0.1, 0.9}}}}, "more than one of changes"},
	} {
		if err := file(c.s).Check(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want an error containing %q", c.s, err, c.err)
		}
	}
	a := Scenario{Changes: []Change{{At: 50, Means: []float64{0.1, 0.9}}}}
	b := Scenario{Changes: []Change{{At: 50, Means: []float64{0.1, 0.9000000000000001}}}}
	if d := a.Diff(b); len(d) != 1 || d[0].Field != "changes" || d[0].A == d[0].B {
		t.Errorf("Diff = %+v", d)
	}
}
