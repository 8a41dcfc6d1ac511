package sdk

import (
	"fmt"
	"math"
	"sort"
)

// ParamType is the type of a policy parameter.
type ParamType string

// The parameter types a plugin may declare.
const (
	Float  ParamType = "float"
	Int    ParamType = "int"
	Bool   ParamType = "bool"
	String ParamType = "string"
)

// Param declares one policy parameter, as listed by Describe and by
// `bench plugins`. Names are lower_snake_case.
type Param struct {
	Name    string
	Type    ParamType
	Default any // float64, int64, bool or string, matching Type
	Doc     string
}

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

// Coerce converts v, as decoded from YAML, JSON or the wire, to the Go type
// of t. Integral floats are accepted as ints and ints as floats; nothing
// else is converted.
func (t ParamType) Coerce(v any) (any, error) {
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
// Params: every declared name, with defaults for missing ones. An unknown
// name or a value of the wrong type is an error naming the parameter.
func Resolve(decl []Param, values map[string]any) (Params, error) {
	byName := make(map[string]Param, len(decl))
	for _, d := range decl {
		byName[d.Name] = d
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(Params, len(decl))
	for _, d := range decl {
		// Coerce defaults too, so a default written as a Go int reads as
		// int64 in process exactly as it does over the wire.
		v, err := d.Type.Coerce(d.Default)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: default: %w", d.Name, err)
		}
		out[d.Name] = v
	}
	for _, k := range names {
		d, ok := byName[k]
		if !ok {
			known := make([]string, 0, len(decl))
			for _, d := range decl {
				known = append(known, d.Name)
			}
			return nil, fmt.Errorf("unknown parameter %q (known: %v)", k, known)
		}
		v, err := d.Type.Coerce(values[k])
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}
