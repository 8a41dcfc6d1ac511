package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

// MaxPrivateSize bounds a private dataset file ReadFile accepts.
const MaxPrivateSize = 1 << 30

// ReadFile reads a private dataset: a CSV file (comma-separated, no
// quoting needed) with one row per line, the D features as numbers and
// then the label as an integer. A first line whose last field is not an
// integer is a header and gives the feature names; without one they are
// x1..xD. Every row has the same number of fields, at least two. The
// labels may be any integers: the K distinct ones, in increasing order,
// become labels 0..K-1 (Classes holds them as written), and K must be at
// least 2. The values are raw: standardise with Standardize. The
// Dataset's Name is the file's base name without its extension, and
// SHA256 the hex SHA-256 of the file's bytes.
func ReadFile(path string) (*Dataset, error) {
	// safeio refuses a FIFO, a device or a directory before any read, and
	// a file over the bound.
	f, err := safeio.Open(path, MaxPrivateSize)
	if err != nil {
		return nil, fmt.Errorf("dataset file %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	d, err := readCSV(io.TeeReader(bufio.NewReader(f), h))
	if err != nil {
		return nil, fmt.Errorf("dataset file %s: %w", path, err)
	}
	if _, err := io.Copy(h, f); err != nil { // whatever the CSV reader left unread
		return nil, fmt.Errorf("dataset file %s: %w", path, err)
	}
	base := filepath.Base(path)
	d.Name = strings.TrimSuffix(base, filepath.Ext(base))
	d.SHA256 = hex.EncodeToString(h.Sum(nil))
	return d, nil
}

// readCSV parses a private dataset (ReadFile).
func readCSV(r io.Reader) (*Dataset, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	d := &Dataset{}
	var labels []int64
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) < 2 {
			return nil, fmt.Errorf("line %d: %d field(s); want the features, then the label", line, len(rec))
		}
		y, yerr := strconv.ParseInt(strings.TrimSpace(rec[len(rec)-1]), 10, 64)
		if line == 1 && yerr != nil {
			d.D = len(rec) - 1
			d.Features = make([]string, d.D)
			for j := range d.D {
				d.Features[j] = strings.TrimSpace(rec[j])
			}
			continue
		}
		if d.D == 0 {
			d.D = len(rec) - 1
		}
		if len(rec) != d.D+1 {
			return nil, fmt.Errorf("line %d: %d fields, want %d (%d features and the label)", line, len(rec), d.D+1, d.D)
		}
		if yerr != nil {
			return nil, fmt.Errorf("line %d: label %q is not an integer", line, rec[len(rec)-1])
		}
		labels = append(labels, y)
		for j, s := range rec[:d.D] {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, fmt.Errorf("line %d: feature %d: %q is not a finite number", line, j+1, s)
			}
			d.X = append(d.X, x)
		}
	}
	if len(labels) == 0 {
		return nil, errors.New("no rows")
	}
	if d.Features == nil {
		d.Features = make([]string, d.D)
		for j := range d.D {
			d.Features[j] = "x" + strconv.Itoa(j+1)
		}
	}
	distinct := slices.Clone(labels)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	if len(distinct) < 2 {
		return nil, fmt.Errorf("one class (label %d); need at least two", distinct[0])
	}
	d.K, d.N = len(distinct), len(labels)
	d.Y = make([]int, d.N)
	for i, y := range labels {
		d.Y[i], _ = slices.BinarySearch(distinct, y)
	}
	for _, y := range distinct {
		d.Classes = append(d.Classes, strconv.FormatInt(y, 10))
	}
	return d, nil
}
