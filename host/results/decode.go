package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/regretbench/regretbench/internal/seed"
)

// Reading a results file streams it. A json.Decoder buffers each value it
// decodes whole, and a results file is one value: decoded in one call, a
// file near MaxFileSize took its text, the decoder's doubling buffer and
// the numbers, about 4 times its size. The decoder below walks the file,
// its policies, their traces and every array of numbers that grows with
// the replications or the checkpoints (final values, series, checkpoints,
// diagnostics, shard.replications) token by token, one number at a time,
// and decodes every other value whole with the json.Decoder into the
// typed fields.
//
// What a file may make bench hold is bounded whatever it holds: at most
// MaxNumbers numbers kept, and at most MaxText bytes of the values decoded
// whole (parameters, errors, the scenario, the comparison section), read
// no further than that. A file beyond either is refused with an error
// that names the field and the bound, never by running out of memory.
// Before, a 1 GiB file of final values took 2.1 GB and bench gate died
// with "fatal error: out of memory" under a 4 GB address-space limit.

// MaxNumbers bounds the numbers a results file may make a reader keep
// outside its traces (MaxNumbers·8 bytes, 128 MiB): final values, series,
// checkpoints, diagnostics, replication indices. The final values of a
// million replications of 4 policies are 16 million numbers; bench gate
// keeps these only, of each of its two files.
const MaxNumbers = 1 << 24

// MaxTraceNumbers bounds the numbers of a results file's traces that a
// reader keeps (MaxTraceNumbers·8 bytes, 512 MiB): a shard file of 1000
// replications with traces at 2000 checkpoints holds 8 million, a file
// of MaxFileSize written by bench at most about 50 million. Traces that a
// reader drops (ReadFileWithoutTraces) are not kept and do not count.
const MaxTraceNumbers = 1 << 26

// MaxText bounds the bytes of JSON text, over the whole file, of the
// values a reader decodes whole rather than number by number: the
// scenario, parameters, errors, distributions, the comparison section.
// bench writes a few kilobytes of them per policy.
const MaxText = 16 << 20

// decoder walks a results file. Members of the objects it walks are
// matched exactly by their JSON names; an unknown member is refused, and,
// as CheckKeys refuses them in the values it decodes, a repeated one and
// one that matches a field only when case is ignored (encoding/json would
// keep the last of two, and take "Seed" for "seed").
type decoder struct {
	dec *json.Decoder
	r   *errReader
	// dropTraces reads traces without keeping them: their numbers are
	// checked as they are read and only their shape kept, for Check.
	dropTraces bool
	numbers    int   // numbers kept so far outside traces, at most MaxNumbers
	traced     int   // numbers of traces kept so far, at most MaxTraceNumbers
	text       int64 // bytes of values decoded whole so far, at most MaxText
}

// errReader remembers the error of the reader under the decoder (a file
// that grew beyond MaxFileSize, an I/O error), which is reported as it is
// rather than as a fault of the JSON at some field. While stop is not 0
// it reads no further than byte stop of the input, and says so with
// errTextBound: a value decoded whole is bounded before it is buffered.
type errReader struct {
	r    io.Reader
	err  error
	n    int64 // bytes read
	stop int64
}

// errTextBound ends the read of a value decoded whole beyond MaxText.
var errTextBound = errors.New("beyond MaxText")

func (e *errReader) Read(p []byte) (int, error) {
	if e.stop > 0 {
		if e.n >= e.stop {
			return 0, errTextBound
		}
		if left := e.stop - e.n; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := e.r.Read(p)
	e.n += int64(n)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// decode reads one results file from r and checks it; with dropTraces,
// its traces are checked as they are read, and not kept.
func decode(r io.Reader, dropTraces bool) (*File, error) {
	er := &errReader{r: r}
	d := &decoder{dec: json.NewDecoder(er), r: er, dropTraces: dropTraces}
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
			var shapes traceShapes
			err := d.members(path, p.Traces, map[string]func(string) error{
				"metrics": func(path string) error {
					var err error
					p.Traces.Metrics, shapes.metrics, err = d.traceMap(path)
					return err
				},
				"diagnostics": func(path string) error {
					var err error
					p.Traces.Diagnostics, shapes.diagnostics, err = d.traceMap(path)
					return err
				},
			})
			if d.dropTraces {
				p.Traces, p.dropped = nil, &shapes
			}
			return err
		},
	})
	return p, err
}

// traceMap reads traces by name, one number at a time, and their shape:
// the length of each row. With dropTraces the numbers are checked and
// not kept.
func (d *decoder) traceMap(path string) (map[string][][]float64, map[string][]int, error) {
	if ok, err := d.open(path, '{'); !ok || err != nil {
		return nil, nil, err
	}
	m := map[string][][]float64{}
	shape := map[string][]int{}
	err := d.object(path, func(name string) error {
		rows, lens, err := d.rows(join(path, name))
		if !d.dropTraces {
			m[name] = rows
		}
		shape[name] = lens
		return err
	})
	return m, shape, err
}

// rows reads an array of rows of numbers and the length of each.
func (d *decoder) rows(path string) ([][]float64, []int, error) {
	if ok, err := d.open(path, '['); !ok || err != nil {
		return nil, nil, err
	}
	rows := [][]float64{}
	lens := []int{}
	for c := 0; d.dec.More(); c++ {
		row, n, err := numbers[float64](d, fmt.Sprintf("%s[%d]", path, c), !d.dropTraces, true)
		if err != nil {
			return nil, nil, err
		}
		if !d.dropTraces {
			rows = append(rows, row)
		}
		lens = append(lens, n)
	}
	return rows, lens, d.close(path)
}

// numbers reads an array of numbers at path one number at a time, and
// returns it (nil for null) and its length. With keep false the numbers
// are checked (finite, within MaxAbs) and not kept; kept, they count
// against MaxTraceNumbers when trace, else MaxNumbers. They are gathered
// in blocks and copied once: growing one slice, as append does, left
// garbage of about twice its size behind, which a large array turned
// into an out-of-memory death under an address-space limit.
func numbers[T float64 | int | uint64](d *decoder, path string, keep, trace bool) ([]T, int, error) {
	if ok, err := d.open(path, '['); !ok || err != nil {
		return nil, 0, err
	}
	count, limit, what := &d.numbers, MaxNumbers, "outside traces"
	if trace {
		count, limit, what = &d.traced, MaxTraceNumbers, "in traces"
	}
	const block = 1 << 16
	var full [][]T
	cur := []T{}
	n := 0
	for ; d.dec.More(); n++ {
		var x T
		if err := d.dec.Decode(&x); err != nil {
			return nil, 0, d.valueErr(fmt.Sprintf("%s[%d]", path, n), err)
		}
		if !keep {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > MaxAbs {
				return nil, 0, fmt.Errorf("%s[%d] = %v: numbers must be finite and within ±%g", path, n, x, MaxAbs)
			}
			continue
		}
		if *count++; *count > limit {
			return nil, 0, fmt.Errorf("%s[%d]: more than %d numbers %s (%d MiB in memory), the most bench reads from one results file", path, n, limit, what, limit*8>>20)
		}
		if len(cur) == block {
			full, cur = append(full, cur), make([]T, 0, block)
		}
		cur = append(cur, x)
	}
	if full != nil {
		out := make([]T, 0, len(full)*block+len(cur))
		for _, b := range full {
			out = append(out, b...)
		}
		cur = append(out, cur...)
	}
	return cur, n, d.close(path)
}

// streamed reads the value at path into v when it is an array of numbers,
// a map of them, or a struct that holds them (Series, DiagSeries, Shard),
// number by number; it returns false for any other value, which the
// caller decodes whole.
func (d *decoder) streamed(path string, v any) (bool, error) {
	var err error
	switch v := v.(type) {
	case *[]float64:
		*v, _, err = numbers[float64](d, path, true, false)
	case *[]int:
		*v, _, err = numbers[int](d, path, true, false)
	case *[]uint64:
		*v, _, err = numbers[uint64](d, path, true, false)
	case *map[string][]float64:
		*v, err = streamedMap(d, path, func(path string) ([]float64, error) {
			xs, _, err := numbers[float64](d, path, true, false)
			return xs, err
		})
	case *map[string]DiagSeries:
		*v, err = streamedMap(d, path, func(path string) (DiagSeries, error) {
			var s DiagSeries
			_, err := d.streamed(path, &s)
			return s, err
		})
	case *Series, *DiagSeries, *Shard:
		var ok bool
		if ok, err = d.open(path, '{'); ok && err == nil {
			err = d.members(path, v, nil)
		}
	default:
		return false, nil
	}
	return true, err
}

// streamedMap reads an object into a map, each member's value by read;
// null is a nil map.
func streamedMap[V any](d *decoder, path string, read func(path string) (V, error)) (map[string]V, error) {
	if ok, err := d.open(path, '{'); !ok || err != nil {
		return nil, err
	}
	m := map[string]V{}
	err := d.object(path, func(key string) error {
		v, err := read(join(path, key))
		m[key] = v
		return err
	})
	return m, err
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
		v := rv.Field(i).Addr().Interface()
		if ok, err := d.streamed(sub, v); ok {
			return err
		}
		return d.value(sub, v)
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
// value is read whole first, no further than what remains of MaxText,
// and its keys checked as CheckKeys checks a document's, before it is
// decoded: json.Decoder checks unknown keys only. Arrays of numbers,
// which hold no keys, are read number by number instead (streamed).
func (d *decoder) value(path string, v any) error {
	var raw json.RawMessage
	// Bytes the decoder has already read ahead come on top: at most its
	// buffer, which only values decoded whole (each within MaxText) grow.
	d.r.stop = d.r.n + (MaxText - d.text) + 1
	err := d.dec.Decode(&raw)
	d.r.stop = 0
	if d.text += int64(len(raw)); errors.Is(err, errTextBound) || d.text > MaxText {
		return fmt.Errorf("%s: more than %d MiB of JSON in the values bench decodes whole (parameters, errors, the scenario...), the most it reads from one results file", path, MaxText>>20)
	}
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
