package roundslog

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Reader reads a rounds log record by record, in the file's order,
// holding one record at a time.
type Reader struct {
	name string
	f    *os.File // nil when the caller owns the stream
	zr   *gzip.Reader
	cr   *csv.Reader
	line int
	last string // the last policy label, shared by its records
}

// Open opens the rounds log at path; Close closes it.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rounds log: %w", err)
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, nil
}

// NewReader reads a rounds log from r (gzip-compressed), naming it name in
// its errors, and checks its header.
func NewReader(r io.Reader, name string) (*Reader, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("rounds log %s: %w", name, err)
	}
	cr := csv.NewReader(zr)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = strings.Count(Header, ",") + 1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("rounds log %s: header: %w", name, err)
	}
	if got := strings.Join(head, ","); got != Header {
		return nil, fmt.Errorf("rounds log %s: header %q, want %q", name, got, Header)
	}
	return &Reader{name: name, zr: zr, cr: cr, line: 1}, nil
}

// Read returns the next record, or io.EOF after the last. An error names
// the file, the line and the field.
func (r *Reader) Read() (Record, error) {
	f, err := r.cr.Read()
	if errors.Is(err, io.EOF) {
		return Record{}, io.EOF
	}
	r.line++
	if err != nil {
		return Record{}, fmt.Errorf("rounds log %s: %w", r.name, err)
	}
	var rec Record
	if f[0] != r.last {
		r.last = strings.Clone(f[0])
	}
	rec.Policy = r.last
	bad := func(field int, err error) (Record, error) {
		return Record{}, fmt.Errorf("rounds log %s: line %d: %s %q: %w", r.name, r.line, strings.Split(Header, ",")[field], f[field], err)
	}
	if rec.Replication, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return bad(1, err)
	}
	ints := [...]*int{&rec.T, &rec.Row, &rec.Arm, &rec.Class}
	for k, p := range ints {
		if *p, err = strconv.Atoi(f[2+k]); err != nil {
			return bad(2+k, err)
		}
	}
	rec.Prob = math.NaN()
	if f[6] != "" {
		if rec.Prob, err = strconv.ParseFloat(f[6], 64); err != nil {
			return bad(6, err)
		}
	}
	floats := [...]*float64{&rec.Reward, &rec.Regret, &rec.Oracle}
	for k, p := range floats {
		if *p, err = strconv.ParseFloat(f[7+k], 64); err != nil {
			return bad(7+k, err)
		}
	}
	return rec, nil
}

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}

// ReadFile calls fn with every record of the log at path, in order,
// stopping at fn's first error, which it returns.
func ReadFile(path string, fn func(*Record) error) error {
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
}
