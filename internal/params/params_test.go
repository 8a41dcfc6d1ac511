package params

import (
	"math"
	"strings"
	"testing"
)

// ranged declares one parameter of each kind of range.
var ranged = []Param{
	{Name: "m", Type: Int, Default: int64(2), Min: Inclusive(2)},
	{Name: "lr", Type: Float, Default: 0.05, Min: Exclusive(0)},
	{Name: "p", Type: Float, Default: 0.5, Min: Exclusive(0), Max: Inclusive(1)},
	{Name: "k", Type: Int, Default: int64(4), Allowed: []any{1, int64(2), 4.0}},
	{Name: "mode", Type: String, Default: "fast", Allowed: []any{"fast", "exact"}},
	{Name: "big", Type: Int, Default: int64(0), Max: Exclusive(1 << 53)},
	{Name: "free", Type: Float, Default: 1.0},
}

// TestResolveRanges: a value outside the declared range or allowed values
// is refused with an error naming the parameter, the value and the range;
// values on an inclusive bound are accepted.
func TestResolveRanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
		want   []string // in the error; none: accepted
	}{
		{"min inclusive: on the bound", map[string]any{"m": 2}, nil},
		{"min inclusive: below", map[string]any{"m": 1}, []string{`parameter "m" = 1`, "want >= 2"}},
		{"min inclusive: from a YAML float", map[string]any{"m": 1.0}, []string{`parameter "m" = 1`, "want >= 2"}},
		{"min exclusive: on the bound", map[string]any{"lr": 0.0}, []string{`parameter "lr" = 0`, "want > 0"}},
		{"min exclusive: negative int", map[string]any{"lr": -5}, []string{`parameter "lr" = -5`, "want > 0"}},
		{"min exclusive: just above", map[string]any{"lr": 1e-300}, nil},
		{"interval: upper bound", map[string]any{"p": 1}, nil},
		{"interval: above", map[string]any{"p": 1.5}, []string{`parameter "p" = 1.5`, "want in (0, 1]"}},
		{"interval: lower bound", map[string]any{"p": 0}, []string{`parameter "p" = 0`, "want in (0, 1]"}},
		{"allowed int", map[string]any{"k": 2}, nil},
		{"allowed int given as float", map[string]any{"k": 4.0}, nil},
		{"not allowed int", map[string]any{"k": 3}, []string{`parameter "k" = 3`, "want one of 1, 2, 4"}},
		{"allowed string", map[string]any{"mode": "exact"}, nil},
		{"not allowed string", map[string]any{"mode": "slow"}, []string{`parameter "mode" = slow`, `want one of "fast", "exact"`}},
		{"int beyond 2^53 compared exactly", map[string]any{"big": int64(1<<53 - 1)}, nil},
		{"int on an exclusive bound beyond 2^52", map[string]any{"big": int64(1 << 53)}, []string{`parameter "big"`, "want < 9.007199254740992e+15"}},
		{"NaN without a range", map[string]any{"free": math.NaN()}, []string{`parameter "free" = NaN`, "want a finite value"}},
		{"Inf without a range", map[string]any{"free": math.Inf(1)}, []string{`parameter "free" = +Inf`, "want a finite value"}},
		{"NaN with a range", map[string]any{"lr": math.NaN()}, []string{`parameter "lr" = NaN`, "want a finite value"}},
		{"several: all are reported", map[string]any{"m": 0, "lr": 0, "k": 3},
			[]string{`parameter "k" = 3: want one of 1, 2, 4; parameter "lr" = 0: want > 0; parameter "m" = 0: want >= 2`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(ranged, tc.values)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				for k, v := range tc.values {
					for _, d := range ranged {
						if want, _ := Coerce(d.Type, v); d.Name == k && got[k] != want {
							t.Errorf("%s = %#v, want %#v", k, got[k], want)
						}
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted %v: %v", tc.values, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestParamValidate: declarations a host cannot use are refused with the
// parameter and the fault named; good ones pass.
func TestParamValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Param
		want string // "" for valid
	}{
		{"plain", Param{Name: "c", Type: Float, Default: 0.0}, ""},
		{"int default written as int", Param{Name: "n", Type: Int, Default: 3}, ""},
		{"ranged", ranged[2], ""},
		{"unknown type", Param{Name: "z", Type: "complex", Default: 0.0}, `parameter "z": unknown type "complex"`},
		{"empty type", Param{Name: "z", Default: 0.0}, `parameter "z": unknown type ""`},
		{"empty name", Param{Type: Float, Default: 0.0}, "empty name"},
		{"default of another type", Param{Name: "n", Type: Int, Default: 0.5}, `parameter "n": default: want int`},
		{"missing default", Param{Name: "n", Type: Int}, `parameter "n": default: want int`},
		{"default below min", Param{Name: "m", Type: Int, Default: int64(1), Min: Inclusive(2)}, `parameter "m": default 1: want >= 2`},
		{"default on exclusive max", Param{Name: "p", Type: Float, Default: 1.0, Max: Exclusive(1)}, `default 1: want < 1`},
		{"default not allowed", Param{Name: "s", Type: String, Default: "x", Allowed: []any{"a", "b"}}, `default x: want one of "a", "b"`},
		{"default NaN", Param{Name: "c", Type: Float, Default: math.NaN()}, "default NaN: want a finite value"},
		{"bound on a string", Param{Name: "s", Type: String, Default: "a", Min: Inclusive(0)}, "a string parameter cannot have a min or max"},
		{"NaN bound", Param{Name: "c", Type: Float, Default: 0.0, Max: Inclusive(math.NaN())}, "bound NaN: want a finite number"},
		{"empty range", Param{Name: "c", Type: Float, Default: 0.0, Min: Inclusive(1), Max: Inclusive(0)}, "empty range in [1, 0]"},
		{"empty point range", Param{Name: "c", Type: Float, Default: 0.0, Min: Exclusive(0), Max: Inclusive(0)}, "empty range in (0, 0]"},
		{"point range", Param{Name: "c", Type: Float, Default: 0.0, Min: Inclusive(0), Max: Inclusive(0)}, ""},
		{"allowed of another type", Param{Name: "k", Type: Int, Default: int64(1), Allowed: []any{int64(1), "two"}}, `parameter "k": allowed value: want int, got string two`},
		{"allowed outside the range", Param{Name: "k", Type: Int, Default: int64(1), Min: Inclusive(1), Allowed: []any{1, 0}}, `parameter "k": allowed value 0: want >= 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.p)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("accepted, want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}
