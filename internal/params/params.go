// Package params holds the rules of a policy's parameters, which the SDK
// (package sdk, whose Param, ParamType and Bound are this package's types)
// and the host (bench checks a scenario's values before it opens a
// session) both apply: what a declaration may say (Validate,
// ValidateAll), which values a parameter accepts (Coerce,
// Check), how it prints its range (Range), and how a
// scenario's values and the declared defaults make a session's parameters
// (Resolve). The Python SDK (sdk/python/regretbench/params.py) mirrors it,
// checked against the same vectors (testdata/vectors.json).
//
// The rules are functions rather than methods of Param and Type, so that
// they do not reach plugin authors through sdk's aliases of these types:
// an author declares parameters and reads values (sdk.Params); the
// checking is the SDK's and the host's.
package params

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Type is the type of a policy parameter (sdk.ParamType).
type Type string

// The parameter types a plugin may declare.
const (
	Float  Type = "float"
	Int    Type = "int"
	Bool   Type = "bool"
	String Type = "string"
)

// Param declares one policy parameter (sdk.Param), as listed by Describe
// and by `bench plugins`. Names are lower_snake_case.
//
// Min, Max and Allowed declare the values the plugin accepts: bench checks
// a scenario's values against them before it opens any session, and the
// SDK checks them again at Open (a host may predate them). Declare what the
// policy's constructor refuses, so that a bad value is a bad scenario
// (exit 2) rather than a policy failing mid-run.
type Param struct {
	Name    string
	Type    Type
	Default any // float64, int64, bool or string, matching Type
	Doc     string
	// Min and Max, when set, bound a float or int parameter (see Inclusive
	// and Exclusive).
	Min, Max *Bound
	// Allowed, when not empty, lists the only values accepted, each of
	// Type.
	Allowed []any
}

// Bound is one end of a parameter's range.
type Bound struct {
	Value     float64
	Exclusive bool // the range excludes Value itself
}

// Inclusive returns a bound that admits v: Min: Inclusive(2) is ">= 2".
func Inclusive(v float64) *Bound { return &Bound{Value: v} }

// Exclusive returns a bound that excludes v: Min: Exclusive(0) is "> 0".
func Exclusive(v float64) *Bound { return &Bound{Value: v, Exclusive: true} }

// Range describes the values p accepts, as bench prints them: ">= 2",
// "in (0, 1]", "one of a, b"; "" when any value of the type is accepted.
func Range(p Param) string {
	var parts []string
	switch lo, hi := p.Min, p.Max; {
	case lo != nil && hi != nil:
		l, r := "[", "]"
		if lo.Exclusive {
			l = "("
		}
		if hi.Exclusive {
			r = ")"
		}
		parts = append(parts, fmt.Sprintf("in %s%v, %v%s", l, lo.Value, hi.Value, r))
	case lo != nil:
		parts = append(parts, map[bool]string{false: ">= ", true: "> "}[lo.Exclusive]+fmt.Sprint(lo.Value))
	case hi != nil:
		parts = append(parts, map[bool]string{false: "<= ", true: "< "}[hi.Exclusive]+fmt.Sprint(hi.Value))
	}
	if len(p.Allowed) > 0 {
		vals := make([]string, len(p.Allowed))
		for i, v := range p.Allowed {
			if s, ok := v.(string); ok {
				vals[i] = strconv.Quote(s)
			} else {
				vals[i] = fmt.Sprint(v)
			}
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	return strings.Join(parts, " and ")
}

// Check reports whether v, already of p's type (see Coerce), is
// a value p accepts: finite (a results file cannot record NaN or Inf),
// within Min and Max, and one of Allowed when that is set. The error says
// what is wanted.
func Check(p Param, v any) error {
	f, isFloat := v.(float64)
	if isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return fmt.Errorf("want a finite value")
	}
	out := false
	if p.Min != nil {
		c := compareBound(v, p.Min.Value)
		out = out || c < 0 || (c == 0 && p.Min.Exclusive)
	}
	if p.Max != nil {
		c := compareBound(v, p.Max.Value)
		out = out || c > 0 || (c == 0 && p.Max.Exclusive)
	}
	if len(p.Allowed) > 0 {
		in := false
		for _, a := range p.Allowed {
			if av, err := Coerce(p.Type, a); err == nil && av == v {
				in = true
				break
			}
		}
		out = out || !in
	}
	if out {
		return fmt.Errorf("want %s", Range(p))
	}
	return nil
}

// compareBound compares a float64 or int64 value with a bound: -1, 0 or
// +1. Ints are compared exactly, also beyond 2^53; other types compare
// equal (bounds apply to numbers only; Validate refuses them elsewhere).
func compareBound(v any, b float64) int {
	switch x := v.(type) {
	case float64:
		return cmp.Compare(x, b)
	case int64:
		switch {
		case b >= 1<<63:
			return -1
		case b < -(1 << 63):
			return 1
		case b == math.Trunc(b):
			return cmp.Compare(x, int64(b))
		case float64(x) < b: // b is not integral, so |b| < 2^52: no rounding
			return -1
		}
		return 1
	}
	return 0
}

// Validate checks a parameter's declaration: a known type, a default of
// that type that the parameter accepts, finite bounds on a number only,
// a non-empty range, and allowed values of the type within the range.
func Validate(p Param) error {
	if p.Name == "" {
		return fmt.Errorf("parameter with an empty name")
	}
	switch p.Type {
	case Float, Int, Bool, String:
	default:
		return fmt.Errorf("parameter %q: unknown type %q (want float, int, bool or string)", p.Name, p.Type)
	}
	if p.Min != nil || p.Max != nil {
		if p.Type != Float && p.Type != Int {
			return fmt.Errorf("parameter %q: a %s parameter cannot have a min or max", p.Name, p.Type)
		}
		for _, b := range []*Bound{p.Min, p.Max} {
			if b != nil && (math.IsNaN(b.Value) || math.IsInf(b.Value, 0)) {
				return fmt.Errorf("parameter %q: bound %v: want a finite number", p.Name, b.Value)
			}
		}
		if p.Min != nil && p.Max != nil && (p.Min.Value > p.Max.Value ||
			(p.Min.Value == p.Max.Value && (p.Min.Exclusive || p.Max.Exclusive))) {
			return fmt.Errorf("parameter %q: empty range %s", p.Name, Range(Param{Min: p.Min, Max: p.Max}))
		}
	}
	for _, a := range p.Allowed {
		v, err := Coerce(p.Type, a)
		if err != nil {
			return fmt.Errorf("parameter %q: allowed value: %w", p.Name, err)
		}
		if err := Check(Param{Min: p.Min, Max: p.Max}, v); err != nil {
			return fmt.Errorf("parameter %q: allowed value %v: %w", p.Name, a, err)
		}
	}
	v, err := Coerce(p.Type, p.Default)
	if err != nil {
		return fmt.Errorf("parameter %q: default: %w", p.Name, err)
	}
	if err := Check(p, v); err != nil {
		return fmt.Errorf("parameter %q: default %v: %w", p.Name, v, err)
	}
	return nil
}

// ValidateAll checks every declaration (Validate) and that names are
// unique: the SDK runs it on a Plugin's own, the host on what a Describe
// answered.
func ValidateAll(decl []Param) error {
	seen := make(map[string]bool, len(decl))
	for _, d := range decl {
		if err := Validate(d); err != nil {
			return err
		}
		if seen[d.Name] {
			return fmt.Errorf("duplicate parameter %q", d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}

// Coerce converts v, as decoded from YAML, JSON or the wire, to the Go type
// of t. Integral floats are accepted as ints and ints as floats; nothing
// else is converted.
func Coerce(t Type, v any) (any, error) {
	switch t {
	case Float:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		case int:
			return float64(x), nil
		case int64:
			return float64(x), nil
		}
	case Int:
		switch x := v.(type) {
		case int:
			return int64(x), nil
		case int64:
			return x, nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), nil
			}
		}
	case Bool:
		if x, ok := v.(bool); ok {
			return x, nil
		}
	case String:
		if x, ok := v.(string); ok {
			return x, nil
		}
	default:
		return nil, fmt.Errorf("unknown parameter type %q", t)
	}
	return nil, fmt.Errorf("want %s, got %T %v", t, v, v)
}

// Resolve checks values against the declared params and returns a complete
// set (sdk.Params): every declared name, with defaults for missing ones;
// values are float64, int64, bool or string, as Coerce makes them. An unknown
// name, a value of the wrong type or a value the parameter does not accept
// (Check) is an error naming the parameter, the value and what is
// wanted. It does not check the declarations themselves: see
// Validate.
func Resolve(decl []Param, values map[string]any) (map[string]any, error) {
	byName := make(map[string]Param, len(decl))
	for _, d := range decl {
		byName[d.Name] = d
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]any, len(decl))
	for _, d := range decl {
		// Coerce defaults too, so a default written as a Go int reads as
		// int64 in process exactly as it does over the wire.
		v, err := Coerce(d.Type, d.Default)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: default: %w", d.Name, err)
		}
		out[d.Name] = v
	}
	// Report every bad value at once, so that fixing a scenario takes one
	// round trip.
	var errs paramErrors
	for _, k := range names {
		d, ok := byName[k]
		if !ok {
			known := make([]string, 0, len(decl))
			for _, d := range decl {
				known = append(known, d.Name)
			}
			errs = append(errs, fmt.Errorf("unknown parameter %q (known: %v)", k, known))
			continue
		}
		v, err := Coerce(d.Type, values[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("parameter %q: %w", k, err))
			continue
		}
		if err := Check(d, v); err != nil {
			errs = append(errs, fmt.Errorf("parameter %q = %v: %w", k, values[k], err))
			continue
		}
		out[k] = v
	}
	switch len(errs) {
	case 0:
		return out, nil
	case 1:
		return nil, errs[0]
	}
	return nil, errs
}

// paramErrors are the errors of several parameters, in name order, on one
// line.
type paramErrors []error

func (e paramErrors) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e paramErrors) Unwrap() []error { return e }
