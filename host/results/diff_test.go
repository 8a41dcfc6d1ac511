package results

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/seed"
)

// TestDiffCoversEveryField: changing any one field of a scenario but its
// description makes Diff report exactly that field, by its JSON name, so a
// field added to Scenario cannot be forgotten by merge, gate and --resume.
func TestDiffCoversEveryField(t *testing.T) {
	yes := true
	base := Scenario{Name: "s", Description: "d", Family: "gaussian", Arms: 2, Horizon: 100, Runs: 10, Seed: seed.Int(1),
		Streams: "sha256-v2", InitPulls: 1, Means: []float64{0.5, 0.4}, NoiseSD: 1, NoiseKnown: &yes, Checkpoints: []int{10, 100}, Feedback: "delay 10",
		Changes: []Change{{At: 20, Means: []float64{0.4, 0.5}}}, Drift: []Change{{At: 30, Means: []float64{0.4, 0.5}}},
		RandomChanges: &RandomChanges{Rate: 0.2, Means: MeanDistribution{Uniform: []float64{0, 2}}},
		Context:       &Context{Dataset: "letter", Rows: 20000, Dim: 16}}
	if d := base.Diff(base); len(d) != 0 {
		t.Fatalf("a scenario differs from itself: %v", d)
	}
	no := false
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		other := base
		v := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Type.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Int:
			v.SetInt(v.Int() + 1)
		case reflect.Uint64:
			v.SetUint(v.Uint() + 1)
		case reflect.Float64:
			v.SetFloat(v.Float() * 2)
		case reflect.Slice:
			if f.Type.Elem().Kind() == reflect.Int {
				v.Set(reflect.ValueOf([]int{10, 50, 100}))
			} else if f.Type.Elem() == reflect.TypeFor[Change]() {
				v.Set(reflect.ValueOf([]Change{{At: 50, Means: []float64{0.4, 0.5}}}))
			} else {
				v.Set(reflect.ValueOf([]float64{0.5, 0.3}))
			}
		case reflect.Pointer:
			if f.Type == reflect.TypeFor[*RandomChanges]() {
				v.Set(reflect.ValueOf(&RandomChanges{Rate: 0.1, Means: MeanDistribution{Uniform: []float64{0, 1}}}))
				break
			}
			if f.Type == reflect.TypeFor[*Context]() {
				v.Set(reflect.ValueOf(&Context{Dataset: "iris", Rows: 150, Dim: 4}))
				break
			}
			v.Set(reflect.ValueOf(&no))
		case reflect.Struct:
			if f.Type != reflect.TypeFor[seed.Seed]() {
				t.Fatalf("field %s: no mutation for type %v; extend this test", f.Name, f.Type)
			}
			v.Set(reflect.ValueOf(seed.FromKey([seed.SecretLen]byte{1})))
		default:
			t.Fatalf("field %s: no mutation for kind %v; extend this test", f.Name, f.Type.Kind())
		}
		d := base.Diff(other)
		if name == "description" {
			if len(d) != 0 {
				t.Errorf("the description counts as a difference: %v", d)
			}
			continue
		}
		if len(d) != 1 || d[0].Field != name {
			t.Errorf("changing %s: Diff = %v, want exactly field %q", f.Name, d, name)
		}
	}
	if d := Only(base.Diff(Scenario{}), ExperimentFields...); len(d) != len(ExperimentFields) {
		t.Errorf("Only kept %d of the experiment fields: %v", len(d), d)
	}
}

// TestDiffAbbreviatesSecretSeeds: merge and --resume messages built from
// Diff tell secret seeds apart without printing either in full.
func TestDiffAbbreviatesSecretSeeds(t *testing.T) {
	a, b := Scenario{Seed: seed.FromKey([seed.SecretLen]byte{0xab, 0xcd, 0xef, 0x01, 0x23})}, Scenario{Seed: seed.Int(7)}
	d := Only(a.Diff(b), "seed")
	if len(d) != 1 || d[0].A != "0xabcdef01…" || d[0].B != "7" {
		t.Fatalf("Diff = %+v, want seed 0xabcdef01… vs 7", d)
	}
}

// TestDiffCost: two runs of one dataset under other cost matrices (or one
// with and one without) are other experiments, and the gate, merge and
// --resume say so.
func TestDiffCost(t *testing.T) {
	base := Scenario{Name: "s", Arms: 2, Context: &Context{Dataset: "credit_g", Rows: 1000, Dim: 20}}
	costed := base
	costed.Context = &Context{Dataset: "credit_g", Rows: 1000, Dim: 20, Cost: [][]float64{{0, 0.2}, {1, 0}}}
	other := base
	other.Context = &Context{Dataset: "credit_g", Rows: 1000, Dim: 20, Cost: [][]float64{{0, 0.4}, {1, 0}}}
	for _, c := range []struct {
		name string
		a, b Scenario
		want int
	}{
		{"same matrix", costed, costed, 0},
		{"matrix and none", base, costed, 1},
		{"two matrices", costed, other, 1},
	} {
		d := Only(c.a.Diff(c.b), ExperimentFields...)
		if len(d) != c.want || (c.want == 1 && d[0].Field != "context") {
			t.Errorf("%s: Diff = %v, want %d difference(s) in context", c.name, d, c.want)
		}
	}
}

// TestCheckCost: a recorded cost matrix is arms x arms values in [0, 1].
func TestCheckCost(t *testing.T) {
	for _, c := range []struct {
		name string
		cost [][]float64
		want string
	}{
		{"none", nil, ""},
		{"valid", [][]float64{{0, 0.2}, {1, 0}}, ""},
		{"rows", [][]float64{{0, 1}}, "scenario.context.cost: 1 rows, want one per arm (2)"},
		{"row length", [][]float64{{0, 1}, {1}}, "scenario.context.cost[1]: 1 values, want 2"},
		{"above 1", [][]float64{{0, 1.5}, {1, 0}}, "scenario.context.cost[0][1] = 1.5"},
		{"NaN", [][]float64{{0, 1}, {math.NaN(), 0}}, "scenario.context.cost[1][0] = NaN"},
	} {
		err := checkCost(c.cost, 2)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
