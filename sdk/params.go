package sdk

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/params"
)

// The rules of parameters (which declarations are valid, which values a
// parameter accepts, how defaults fill in) are shared with the host, which
// checks a scenario's values before it opens a session: they live in
// internal/params, whose types these are.

// ParamType is the type of a policy parameter: Float, Int, Bool or String.
// A value reaches a policy in the Go type of its parameter (Params):
// float64, int64, bool or string.
type ParamType = params.Type

// The parameter types a plugin may declare.
const (
	Float  ParamType = params.Float
	Int    ParamType = params.Int
	Bool   ParamType = params.Bool
	String ParamType = params.String
)

// Param declares one policy parameter, as listed by Describe and by
// `bench plugins`: its Name (lower_snake_case), Type, Default (float64,
// int64, bool or string, matching Type) and Doc.
//
// Min and Max (see Inclusive and Exclusive) bound a float or int
// parameter, and Allowed, when not empty, lists the only values accepted:
// bench checks a scenario's values against them before it opens any
// session, and the SDK checks them again at Open (a host may predate
// them). Declare what the policy's constructor refuses, so that a bad
// value is a bad scenario (exit 2) rather than a policy failing mid-run.
//
// Serve refuses a plugin whose declarations are invalid (an unknown type,
// a default of another type or outside the range, an empty range,
// duplicate names); `bench plugins` prints each range as ">= 2",
// "in (0, 1]" or "one of a, b".
type Param = params.Param

// Bound is one end of a parameter's range: a Value, and whether the range
// excludes it (Exclusive).
type Bound = params.Bound

// Inclusive returns a bound that admits v: Min: Inclusive(2) is ">= 2".
func Inclusive(v float64) *Bound { return params.Inclusive(v) }

// Exclusive returns a bound that excludes v: Min: Exclusive(0) is "> 0".
func Exclusive(v float64) *Bound { return params.Exclusive(v) }

// Params holds parameter values by name: float64, int64, bool or string.
type Params map[string]any

// Float returns the float parameter name (an int value is converted).
// It panics if the parameter is missing, which the SDK prevents by filling
// in every declared default before a factory is called.
func (p Params) Float(name string) float64 {
	switch v := p[name].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	}
	panic(fmt.Sprintf("sdk: param %q is not a float: %#v", name, p[name]))
}

// Int returns the int parameter name.
func (p Params) Int(name string) int {
	if v, ok := p[name].(int64); ok {
		return int(v)
	}
	panic(fmt.Sprintf("sdk: param %q is not an int: %#v", name, p[name]))
}

// Bool returns the bool parameter name.
func (p Params) Bool(name string) bool {
	if v, ok := p[name].(bool); ok {
		return v
	}
	panic(fmt.Sprintf("sdk: param %q is not a bool: %#v", name, p[name]))
}

// String returns the string parameter name.
func (p Params) String(name string) string {
	if v, ok := p[name].(string); ok {
		return v
	}
	panic(fmt.Sprintf("sdk: param %q is not a string: %#v", name, p[name]))
}

// Resolve returns the Params a session gets for values, as the SDK
// resolves them at Open: every declared name, with defaults for missing
// ones. An unknown name, a value of the wrong type or a value the parameter
// does not accept (outside Min and Max, not one of Allowed) is an error
// naming the parameter, the value and what is wanted. It does not check
// the declarations themselves, as Serve does. A policy's unit tests use it
// to build a Session:
//
//	p, err := sdk.Resolve(Params, map[string]any{"c": 2})
func Resolve(decl []Param, values map[string]any) (Params, error) {
	p, err := params.Resolve(decl, values)
	return Params(p), err
}
