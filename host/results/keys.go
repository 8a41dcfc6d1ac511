package results

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CheckKeys refuses what encoding/json would silently misread in the JSON
// document data, decoded into a value of v's type: a key that appears twice
// in one object (the decoder keeps the last), and a key of an object
// decoded into a struct that matches a field's name only when case is
// ignored ("Seed" for "seed", "ſeed" too: the decoder matches field names
// case-insensitively, so that a "Seed" after "seed" replaced it). Every
// object of the document is checked, at any depth, including those held
// by maps, interfaces and json.RawMessage fields (for duplicates; their
// readers check the rest). Unknown keys are left to the decoder
// (DisallowUnknownFields), and so is a document that is not JSON: CheckKeys
// then returns nil. The error names the key and where it is, as a path
// ("scenario", "policies[0].params").
func CheckKeys(data []byte, v any) error {
	s := &keyScanner{data: data}
	err := s.value(elem(reflect.TypeOf(v)), "", 0)
	if s.invalid {
		return nil // the decoder says what is wrong, and where
	}
	return err
}

// maxKeyDepth bounds the nesting CheckKeys follows, as encoding/json bounds
// its own (10000): deeper documents are left to the decoder to refuse.
const maxKeyDepth = 10000

// keyScanner walks a JSON document byte by byte; invalid is set, and the
// walk abandoned, at the first byte that is not JSON.
type keyScanner struct {
	data    []byte
	i       int
	invalid bool
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// fieldsOf maps the JSON names of struct type t's fields to their types,
// as encoding/json names them (the tag's name, else the Go name; "-"
// skipped; untagged embedded structs flattened).
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for n, ft := range fieldsOf(et) {
					if _, ok := out[n]; !ok {
						out[n] = ft
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// elem returns the type a JSON value decodes into for a Go type t: t
// without pointers, or nil when the value's objects have no fields to
// match (an interface, a type with its own UnmarshalJSON, no type).
func elem(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		if t.Implements(unmarshalerType) {
			return nil
		}
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	return t
}

func (s *keyScanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value walks the value at s.i, decoded into type t (as elem gives it), at
// path.
func (s *keyScanner) value(t reflect.Type, path string, depth int) error {
	if depth > maxKeyDepth {
		s.invalid = true
		return nil
	}
	s.ws()
	if s.i >= len(s.data) {
		s.invalid = true
		return nil
	}
	switch s.data[s.i] {
	case '{':
		return s.object(t, path, depth)
	case '[':
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = elem(t.Elem())
		}
		s.i++
		s.ws()
		if s.i < len(s.data) && s.data[s.i] == ']' {
			s.i++
			return nil
		}
		for n := 0; ; n++ {
			s.ws()
			if s.i < len(s.data) && (s.data[s.i] == '{' || s.data[s.i] == '[') {
				if err := s.value(et, fmt.Sprintf("%s[%d]", path, n), depth+1); err != nil || s.invalid {
					return err
				}
			} else if s.scalar(); s.invalid { // the common case: a number of a long series
				return nil
			}
			s.ws()
			if s.i >= len(s.data) {
				s.invalid = true
				return nil
			}
			switch s.data[s.i] {
			case ',':
				s.i++
			case ']':
				s.i++
				return nil
			default:
				s.invalid = true
				return nil
			}
		}
	}
	s.scalar()
	return nil
}

// scalar skips the string, number, true, false or null at s.i.
func (s *keyScanner) scalar() {
	if s.i < len(s.data) && s.data[s.i] == '"' {
		s.str()
		return
	}
	start := s.i
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			if s.i == start {
				s.invalid = true
			}
			return
		}
		s.i++
	}
}

// str skips the string at s.i and returns its raw bytes, quotes included.
func (s *keyScanner) str() []byte {
	start := s.i
	s.i++ // the opening quote
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return s.data[start:s.i]
		default:
			s.i++
		}
	}
	s.invalid = true
	return nil
}

// object walks the object at s.i, decoded into type t, at path.
func (s *keyScanner) object(t reflect.Type, path string, depth int) error {
	var fields map[string]reflect.Type
	switch {
	case t != nil && t.Kind() == reflect.Struct:
		fields = fieldsOf(t)
	case t != nil && t.Kind() == reflect.Map:
		t = elem(t.Elem())
	default:
		t = nil
	}
	where := "" // "PATH: ", or nothing at the top level
	if path != "" {
		where = path + ": "
	}
	s.i++ // '{'
	seen := map[string]bool{}
	for first := true; ; first = false {
		s.ws()
		if s.i >= len(s.data) {
			s.invalid = true
			return nil
		}
		if first && s.data[s.i] == '}' {
			s.i++
			return nil
		}
		if s.data[s.i] != '"' {
			s.invalid = true
			return nil
		}
		raw := s.str()
		if s.invalid {
			return nil
		}
		key := string(raw[1 : len(raw)-1])
		if strings.IndexByte(key, '\\') >= 0 || !utf8.ValidString(key) {
			if err := json.Unmarshal(raw, &key); err != nil {
				s.invalid = true
				return nil
			}
		}
		if seen[key] {
			return fmt.Errorf("%skey %q appears twice (a JSON reader would keep only the last)", where, key)
		}
		seen[key] = true
		vt := t
		if fields != nil {
			ft, ok := fields[key]
			vt = elem(ft)
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, key) {
						return fmt.Errorf("%skey %q differs from the field %q only in case (a JSON reader would take it for %q); keys are case-sensitive", where, key, name, name)
					}
				}
			}
		}
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			s.invalid = true
			return nil
		}
		s.i++
		if err := s.value(vt, join(path, key), depth+1); err != nil || s.invalid {
			return err
		}
		s.ws()
		if s.i >= len(s.data) {
			s.invalid = true
			return nil
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			s.invalid = true
			return nil
		}
	}
}

// join extends a path by a key: "a.b", or a["k.x"] for a key that would
// read as two.
func join(path, key string) string {
	if key == "" || strings.ContainsAny(key, ".[]\" ") {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}
