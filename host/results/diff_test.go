package results

import (
	"reflect"
	"strings"
	"testing"
)

// TestDiffCoversEveryField: changing any one field of a scenario but its
// description makes Diff report exactly that field, by its JSON name, so a
// field added to Scenario cannot be forgotten by merge, gate and --resume.
func TestDiffCoversEveryField(t *testing.T) {
	yes := true
	base := Scenario{Name: "s", Description: "d", Family: "gaussian", Arms: 2, Horizon: 100, Runs: 10, Seed: 1,
		Streams: "sha256-v2", InitPulls: 1, Means: []float64{0.5, 0.4}, NoiseSD: 1, NoiseKnown: &yes, Checkpoints: []int{10, 100}, Feedback: "delay 10"}
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
			} else {
				v.Set(reflect.ValueOf([]float64{0.5, 0.3}))
			}
		case reflect.Pointer:
			v.Set(reflect.ValueOf(&no))
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
