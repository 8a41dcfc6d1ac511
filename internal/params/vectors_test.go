package params

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// vectorsFile holds the parameter rules' vectors, which this package and
// the Python SDK (sdk/python/tests/test_params.py) both check: they live
// beside the step socket's frame vectors, with the SDKs' other shared
// files.
const vectorsFile = "../../sdk/testdata/params/vectors.json"

// paramVectors is vectorsFile: see its "doc" for the encoding.
type paramVectors struct {
	Coerce []struct {
		Type  Type            `json:"type"`
		Value json.RawMessage `json:"value"`
		Want  json.RawMessage `json:"want"`
		Error string          `json:"error"`
	} `json:"coerce"`
	Range []struct {
		Param vectorParam `json:"param"`
		Want  string      `json:"want"`
	} `json:"range"`
	Validate []struct {
		Name  string        `json:"name"`
		Decl  []vectorParam `json:"decl"`
		Error string        `json:"error"`
	} `json:"validate"`
	Resolve struct {
		Decl  []vectorParam `json:"decl"`
		Cases []struct {
			Name   string                     `json:"name"`
			Values map[string]json.RawMessage `json:"values"`
			Want   map[string]json.RawMessage `json:"want"`
			Errors []struct {
				Param string `json:"param"`
				Want  string `json:"want"`
			} `json:"errors"`
		} `json:"cases"`
	} `json:"resolve"`
}

// vectorParam is a Param as the vectors write it.
type vectorParam struct {
	Name    string            `json:"name"`
	Type    Type              `json:"type"`
	Default json.RawMessage   `json:"default"`
	Min     *Bound            `json:"min"`
	Max     *Bound            `json:"max"`
	Allowed []json.RawMessage `json:"allowed"`
}

// vectorValue decodes a value of the vectors: an int when the number is
// written without '.' or exponent, a float otherwise, or a NaN or an
// infinity written {"float": "NaN"}.
func vectorValue(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var special struct {
		Float string `json:"float"`
	}
	if bytes.HasPrefix(raw, []byte("{")) {
		if err := json.Unmarshal(raw, &special); err != nil {
			t.Fatalf("vector value %s: %v", raw, err)
		}
		f, err := strconv.ParseFloat(special.Float, 64)
		if err != nil {
			t.Fatalf("vector value %s: %v", raw, err)
		}
		return f
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("vector value %s: %v", raw, err)
	}
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if !strings.ContainsAny(string(n), ".eE") {
		i, err := n.Int64()
		if err != nil {
			t.Fatalf("vector value %s: %v", raw, err)
		}
		return i
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatalf("vector value %s: %v", raw, err)
	}
	return f
}

func (vp vectorParam) param(t *testing.T) Param {
	p := Param{Name: vp.Name, Type: vp.Type, Default: vectorValue(t, vp.Default), Min: vp.Min, Max: vp.Max}
	for _, a := range vp.Allowed {
		p.Allowed = append(p.Allowed, vectorValue(t, a))
	}
	return p
}

func loadParamVectors(t *testing.T) *paramVectors {
	t.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v paramVectors
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var withDoc struct {
		Doc string `json:"doc"`
		paramVectors
	}
	if err := dec.Decode(&withDoc); err != nil {
		t.Fatalf("%s: %v", vectorsFile, err)
	}
	v = withDoc.paramVectors
	if len(v.Coerce) < 10 || len(v.Range) < 10 || len(v.Validate) < 10 || len(v.Resolve.Cases) < 10 {
		t.Fatalf("%s: too few vectors", vectorsFile)
	}
	return &v
}

// same reports whether got and want are equal and of one Go type, NaN
// equal to itself.
func same(got, want any) bool {
	if g, ok := got.(float64); ok && math.IsNaN(g) {
		w, ok := want.(float64)
		return ok && math.IsNaN(w)
	}
	return reflect.TypeOf(got) == reflect.TypeOf(want) && got == want
}

// TestSharedVectors: the rules of parameters give what the vectors shared
// with the Python SDK say: Coerce's conversions and refusals, Range's text
// byte for byte, ValidateAll's refusals, and Resolve's parameters (values
// and types) or its errors, every bad value reported in name order.
func TestSharedVectors(t *testing.T) {
	v := loadParamVectors(t)
	wantErr := func(t *testing.T, err error, want string) {
		t.Helper()
		switch {
		case want == "" && err != nil:
			t.Errorf("refused: %v", err)
		case want != "" && err == nil:
			t.Errorf("accepted, want an error with %q", want)
		case want != "" && !strings.Contains(err.Error(), want):
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	for _, c := range v.Coerce {
		t.Run(fmt.Sprintf("coerce %s %s", c.Type, c.Value), func(t *testing.T) {
			got, err := Coerce(c.Type, vectorValue(t, c.Value))
			wantErr(t, err, c.Error)
			if c.Error == "" && !same(got, vectorValue(t, c.Want)) {
				t.Errorf("got %T %v, want %s", got, got, c.Want)
			}
		})
	}
	for _, c := range v.Range {
		t.Run("range "+c.Want, func(t *testing.T) {
			p := c.Param.param(t)
			if err := Validate(p); err != nil {
				t.Fatalf("the vector's declaration is refused: %v", err)
			}
			if got := Range(p); got != c.Want {
				t.Errorf("Range() = %q, want %q", got, c.Want)
			}
		})
	}
	for _, c := range v.Validate {
		t.Run("validate "+c.Name, func(t *testing.T) {
			var decl []Param
			for _, vp := range c.Decl {
				decl = append(decl, vp.param(t))
			}
			wantErr(t, ValidateAll(decl), c.Error)
		})
	}
	var decl []Param
	for _, vp := range v.Resolve.Decl {
		decl = append(decl, vp.param(t))
	}
	if err := ValidateAll(decl); err != nil {
		t.Fatalf("resolve's declarations: %v", err)
	}
	for _, c := range v.Resolve.Cases {
		t.Run("resolve "+c.Name, func(t *testing.T) {
			values := map[string]any{}
			for k, raw := range c.Values {
				values[k] = vectorValue(t, raw)
			}
			got, err := Resolve(decl, values)
			if len(c.Errors) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(got) != len(c.Want) {
					t.Errorf("got %v, want %d parameters", got, len(c.Want))
				}
				for k, raw := range c.Want {
					if w := vectorValue(t, raw); !same(got[k], w) {
						t.Errorf("%s = %T %v, want %T %v", k, got[k], got[k], w, w)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %v", got)
			}
			// One error per bad value, joined by "; " in the order given,
			// each naming its parameter (quoted) and saying what is wanted.
			parts := strings.Split(err.Error(), "; ")
			if len(parts) != len(c.Errors) {
				t.Fatalf("error %q: %d errors, want %d", err, len(parts), len(c.Errors))
			}
			for i, e := range c.Errors {
				if !strings.Contains(parts[i], strconv.Quote(e.Param)) || !strings.Contains(parts[i], e.Want) {
					t.Errorf("error %d %q lacks %q or %q", i, parts[i], strconv.Quote(e.Param), e.Want)
				}
			}
		})
	}
}
