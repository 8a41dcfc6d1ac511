package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/regretbench/regretbench/internal/seed"
)

// Reading a results file streams it. A json.Decoder buffers each value it
// decodes whole, and a results file is one value: decoded in one call, a
// file near MaxFileSize took its text, the decoder's doubling buffer and
// the numbers, about 4 times its size. The decoder below walks the file,
// its policies and their traces token by token, and decodes every other
// value with the json.Decoder into the typed fields: the largest value
// buffered is then one trace row, one replication's value per row, and
// reading takes about what the file decodes to.

// decoder walks a results file. Members of the objects it walks are
// matched exactly by their JSON names; an unknown member is refused, and,
// as CheckKeys refuses them in the values it decodes, a repeated one and
// one that matches a field only when case is ignored (encoding/json would
// keep the last of two, and take "Seed" for "seed").
type decoder struct {
	dec *json.Decoder
	r   *errReader
}

// errReader remembers the error of the reader under the decoder (a file
// that grew beyond MaxFileSize, an I/O error), which is reported as it is
// rather than as a fault of the JSON at some field.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// decode reads one results file from r and checks it.
func decode(r io.Reader) (*File, error) {
	er := &errReader{r: r}
	d := &decoder{dec: json.NewDecoder(er), r: er}
	d.dec.DisallowUnknownFields()
	f, err := d.file()
	if err == nil {
		// One object and nothing else: a second one is two files run
		// together.
		if _, terr := d.dec.Token(); terr != io.EOF {
			err = fmt.Errorf("data after the results object at byte %d (two files concatenated?)", d.dec.InputOffset())
		}
	}
	if er.err != nil {
		return nil, er.err
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("not valid JSON (truncated?): %w", err)
		}
		return nil, err
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return f, nil
}

// file reads the results object.
func (d *decoder) file() (*File, error) {
	t, err := d.dec.Token()
	if err == io.EOF {
		return nil, errors.New("empty file")
	}
	if err != nil {
		return nil, err
	}
	var f File
	if t == nil { // null: Check refuses the empty file it leaves
		return &f, nil
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("cannot unmarshal %s into a results object", kind(t))
	}
	err = d.members("", &f, map[string]func(string) error{
		"policies": func(path string) error {
			var err error
			f.Policies, err = d.policies(path)
			return err
		},
	})
	return &f, err
}

// policies reads the array of policies.
func (d *decoder) policies(path string) ([]*Policy, error) {
	if ok, err := d.open(path, '['); !ok || err != nil {
		return nil, err
	}
	ps := []*Policy{}
	for i := 0; d.dec.More(); i++ {
		p, err := d.policy(fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, d.close(path)
}

// policy reads one policy; null is a nil policy, which Check refuses.
func (d *decoder) policy(path string) (*Policy, error) {
	if ok, err := d.open(path, '{'); !ok || err != nil {
		return nil, err
	}
	p := new(Policy)
	err := d.members(path, p, map[string]func(string) error{
		"traces": func(path string) error {
			if ok, err := d.open(path, '{'); !ok || err != nil {
				p.Traces = nil
				return err
			}
			p.Traces = new(Traces)
			return d.members(path, p.Traces, map[string]func(string) error{
				"metrics": func(path string) error {
					var err error
					p.Traces.Metrics, err = d.traceMap(path)
					return err
				},
				"diagnostics": func(path string) error {
					var err error
					p.Traces.Diagnostics, err = d.traceMap(path)
					return err
				},
			})
		},
	})
	return p, err
}

// traceMap reads traces by name, one row at a time.
func (d *decoder) traceMap(path string) (map[string][][]float64, error) {
	if ok, err := d.open(path, '{'); !ok || err != nil {
		return nil, err
	}
	m := map[string][][]float64{}
	err := d.object(path, func(name string) error {
		rows, err := d.rows(join(path, name))
		m[name] = rows
		return err
	})
	return m, err
}

// rows reads an array of rows of numbers, decoding one row at a time.
func (d *decoder) rows(path string) ([][]float64, error) {
	if ok, err := d.open(path, '['); !ok || err != nil {
		return nil, err
	}
	rows := [][]float64{}
	for c := 0; d.dec.More(); c++ {
		var row []float64
		if err := d.valueErr(fmt.Sprintf("%s[%d]", path, c), d.dec.Decode(&row)); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, d.close(path)
}

// members reads the members of an object whose '{' open has read into the
// struct that v points to: a member named in walk is read by its function,
// any other decoded into the field of that JSON name.
func (d *decoder) members(path string, v any, walk map[string]func(string) error) error {
	rv := reflect.ValueOf(v).Elem()
	index := jsonFields(rv.Type())
	return d.object(path, func(key string) error {
		sub := join(path, key)
		if f, ok := walk[key]; ok {
			return f(sub)
		}
		i, ok := index[key]
		if !ok {
			for name := range index {
				if strings.EqualFold(name, key) {
					return fmt.Errorf("%skey %q differs from the field %q only in case (a JSON reader would take it for %q); keys are case-sensitive", where(path), key, name, name)
				}
			}
			return fmt.Errorf("%sunknown field %q", where(path), key)
		}
		return d.value(sub, rv.Field(i).Addr().Interface())
	})
}

// object calls member for each member's key of an object whose '{' has
// been read, with the decoder before the member's value, then reads the
// '}'. A key repeated is refused.
func (d *decoder) object(path string, member func(key string) error) error {
	seen := map[string]bool{}
	for d.dec.More() {
		t, err := d.token(path)
		if err != nil {
			return err
		}
		key, _ := t.(string) // the decoder returns only strings as keys
		if seen[key] {
			return fmt.Errorf("%skey %q appears twice (a JSON reader would keep only the last)", where(path), key)
		}
		seen[key] = true
		if err := member(key); err != nil {
			return err
		}
	}
	return d.close(path)
}

// open reads the start of an object or an array (delim), or a null, for
// which it returns false.
func (d *decoder) open(path string, delim json.Delim) (bool, error) {
	t, err := d.token(path)
	if err != nil {
		return false, err
	}
	switch t {
	case delim:
		return true, nil
	case nil:
		return false, nil
	}
	want := "an object"
	if delim == '[' {
		want = "an array"
	}
	return false, fmt.Errorf("%s: cannot unmarshal %s into %s", path, kind(t), want)
}

// close reads the end of the object or array at path, after its last
// member.
func (d *decoder) close(path string) error {
	_, err := d.token(path)
	return err
}

// token reads the next token within the value at path; the end of the
// input is unexpected there.
func (d *decoder) token(path string) (json.Token, error) {
	t, err := d.dec.Token()
	if err == nil || d.r.err != nil {
		return t, err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if path == "" {
		return t, err
	}
	return t, fmt.Errorf("%s: %w", path, err)
}

// value decodes the next value into v, naming path in its errors. The
// value is read whole first, and its keys checked as CheckKeys checks a
// document's, before it is decoded: json.Decoder checks unknown keys only.
// Trace rows, which hold no keys, are decoded straight (rows).
func (d *decoder) value(path string, v any) error {
	var raw json.RawMessage
	err := d.dec.Decode(&raw)
	if err == nil {
		ks := &keyScanner{data: raw}
		if err := ks.value(elem(reflect.TypeOf(v)), path, 0); err != nil && !ks.invalid {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
	}
	return d.valueErr(path, err)
}

// valueErr names path in err, an error decoding the value there.
func (d *decoder) valueErr(path string, err error) error {
	if err == nil || d.r.err != nil {
		return err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		at := path
		if te.Field != "" {
			at += "." + te.Field
		}
		return &typeError{path: at, err: te}
	case errors.Is(err, seed.ErrInvalid) && path == "scenario":
		return fmt.Errorf("scenario.seed: %w", err) // the one seed of the schema
	}
	return fmt.Errorf("%s: %w", path, err)
}

// typeError is a value of the wrong type at path, such as a string where
// a number belongs.
type typeError struct {
	path string
	err  *json.UnmarshalTypeError
}

func (e *typeError) Error() string {
	return fmt.Sprintf("%s: cannot unmarshal %s into %s", e.path, e.err.Value, e.err.Type)
}

func (e *typeError) Unwrap() error { return e.err }

// kind names a token's JSON type for messages.
func kind(t json.Token) string {
	switch t := t.(type) {
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}

// where prefixes a message about the object at path: "PATH: ", or
// nothing at the top level, as CheckKeys does.
func where(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

var fieldIndex sync.Map // reflect.Type -> map[string]int

// jsonFields maps the JSON names of a struct type's fields to their
// indices.
func jsonFields(t reflect.Type) map[string]int {
	if m, ok := fieldIndex.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case name == "":
			name = f.Name
		}
		m[name] = i
	}
	fieldIndex.Store(t, m)
	return m
}
