// Package dataset is the real classification data that ships inside
// bench, for contextual scenarios that turn a supervised dataset into a
// bandit problem (one arm per class, reward 1 for the right class, or 1
// minus a scenario's cost matrix entry: docs/contextual.md), as
// the contextual bandit bake-off (Bietti, Agarwal & Langford, "A
// Contextual Bandit Bake-off", JMLR 2021) does with OpenML's datasets.
//
// # What ships
//
// Nineteen datasets, taken from Debian packages (python3-sklearn,
// r-cran-mlbench, weka) by tools/datasets/convert.py and embedded in the
// binary as one gzipped CSV file each under data/ (1.1 MB in all), so
// that `go install` gives them with no download. [Names] lists them;
// [Lookup] and [Infos] give each one's provenance (Debian package
// and file, original source, licence, the OpenML id the bake-off used
// where it used the same data) and its counts. docs/datasets.md has the
// same as a table, with the citations.
//
// # The files
//
// A file's first line is "classes" then the class names (label i is the
// i-th), its second "label" then the feature names, then one line per row
// in the source's order: the label in [0, K), then the D feature values.
// The values are raw, as the source has them, after one encoding applied
// by the script to every dataset: numeric features as they are, boolean
// ones as 0/1, a categorical feature one-hot over its levels that occur
// (one 0/1 column when there are two), and a missing categorical value as
// a level of its own ("NA"). No shipped dataset has a missing numeric
// value; the script refuses one rather than impute it. D, the feature
// count, is the count after this encoding.
//
// # Memory
//
// Nothing is decoded at init: the embedded files stay in the binary's
// read-only data, which the kernel maps but does not read in until it is
// touched, so a bench that never loads a dataset (every context-free
// scenario) has the resident memory it had without them
// (TestResidentMemory measures it). [Load]
// decompresses and parses only the dataset it is asked for, each time it
// is called; a caller that needs one dataset many times keeps the
// [*Dataset].
//
// # Standardisation
//
// [Load] returns the raw values. [Dataset.Standardize] standardises them
// in place, feature by feature over all N rows: x' = (x - mean) / sd,
// with mean = (sum of x) / N and sd = sqrt((sum of (x - mean)²) / N) (the
// population variance, as scikit-learn's StandardScaler). A feature whose
// N values are all equal becomes 0. The sums run over the rows in file
// order with each product rounded to float64 before it is added (no fused
// multiply-add), so the result is the same bits on every platform; the
// package's tests hold a SHA-256 of every standardised matrix.
//
// Why standardise: linear policies (LinUCB, linear Thompson sampling,
// ridge-regression oracles) are not invariant to the scale of a feature,
// and the raw features span very different scales (shuttle's values run
// from -26,739 to 15,164, sonar's from 0 to 1). The bake-off's own conversion
// (oml_to_vw.py in its repository, albietz/cb_bakeoff) wrote OpenML's
// values unscaled and left scale to Vowpal Wabbit's normalised adaptive
// updates, which are per-feature scale invariant; policies here have no
// such learner underneath, so bench standardises the data once, the same
// way for every policy. Standardising over the whole dataset uses each
// feature's mean and variance before the rows are played, which a policy
// could not know online; it is a fixed transform of the data, the same
// for every policy and replication, and leaks no label.
package dataset

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

//go:embed data/*.csv.gz
var files embed.FS

// Dataset is one dataset, loaded: N rows of D features and a label each.
type Dataset struct {
	// Name is the dataset's name, as Names lists it ("letter").
	Name string
	// N is the number of rows, D the number of features (after one-hot
	// encoding), K the number of classes.
	N, D, K int
	// X holds the features row by row: row i is X[i*D : (i+1)*D].
	X []float64
	// Y holds the labels, each in [0, K); every class occurs.
	Y []int
	// Classes names the classes: label k is Classes[k].
	Classes []string
	// Features names the D features ("plant.stand=1" for a one-hot
	// column, "NA" for the level of a missing value).
	Features []string
	// Standardized says whether Standardize has been applied.
	Standardized bool
	// SHA256 is the hex SHA-256 of a private dataset file's bytes
	// (ReadFile); "" for a shipped dataset.
	SHA256 string
}

// Row returns row i's features, a slice of X (not a copy).
func (d *Dataset) Row(i int) []float64 {
	return d.X[i*d.D : (i+1)*d.D : (i+1)*d.D]
}

// Names returns the names of the shipped datasets, sorted.
func Names() []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	sort.Strings(out)
	return out
}

// ErrUnknown is returned, wrapped, by Load and File for a name that is
// not a shipped dataset.
var ErrUnknown = errors.New("no such dataset")

// File returns the embedded file of the dataset name, compressed, as it
// ships: for a checksum, or to hand the data on without decoding it.
func File(name string) ([]byte, error) {
	if _, ok := Lookup(name); !ok {
		return nil, fmt.Errorf("dataset %q: %w (known: %v)", name, ErrUnknown, Names())
	}
	return files.ReadFile("data/" + name + ".csv.gz")
}

// Load decompresses and parses the dataset name, with its raw (not
// standardised) values. Each call decodes the file afresh and returns a
// new Dataset: two loads are equal bit for bit.
func Load(name string) (*Dataset, error) {
	raw, err := File(name)
	if err != nil {
		return nil, err
	}
	d, err := parse(name, raw)
	if err != nil {
		return nil, fmt.Errorf("dataset %s (data/%s.csv.gz): %w", name, name, err)
	}
	return d, nil
}

func parse(name string, raw []byte) (*Dataset, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(zr)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil || len(head) < 2 || head[0] != "classes" {
		return nil, fmt.Errorf("line 1: want \"classes\" and the class names (%v)", err)
	}
	d := &Dataset{Name: name, Classes: append([]string(nil), head[1:]...)}
	d.K = len(d.Classes)
	head, err = r.Read()
	if err != nil || len(head) < 2 || head[0] != "label" {
		return nil, fmt.Errorf("line 2: want \"label\" and the feature names (%v)", err)
	}
	d.Features = append([]string(nil), head[1:]...)
	d.D = len(d.Features)
	if in, ok := Lookup(name); ok && in.Rows > 0 {
		d.X = make([]float64, 0, in.Rows*d.D)
		d.Y = make([]int, 0, in.Rows)
	}
	for line := 3; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != 1+d.D {
			return nil, fmt.Errorf("line %d: %d fields, want %d (the label and %d features)", line, len(rec), 1+d.D, d.D)
		}
		y, err := strconv.Atoi(rec[0])
		if err != nil || y < 0 || y >= d.K {
			return nil, fmt.Errorf("line %d: label %q is not an integer in [0, %d)", line, rec[0], d.K)
		}
		d.Y = append(d.Y, y)
		for j, s := range rec[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, fmt.Errorf("line %d: feature %s: %q is not a finite number", line, d.Features[j], s)
			}
			d.X = append(d.X, x)
		}
	}
	if err := zr.Close(); err != nil {
		return nil, err
	}
	d.N = len(d.Y)
	if d.N == 0 {
		return nil, errors.New("no rows")
	}
	seen := make([]bool, d.K)
	for _, y := range d.Y {
		seen[y] = true
	}
	for k, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("class %d (%s) has no row", k, d.Classes[k])
		}
	}
	return d, nil
}

// Standardize standardises every feature in place to mean 0 and variance
// 1 over the N rows (the package doc gives the formula), a constant
// feature to 0, and sets Standardized. On a dataset already standardised
// it does nothing. The result is the same bits on every platform.
func (d *Dataset) Standardize() {
	if d.Standardized || d.N == 0 {
		return
	}
	n := float64(d.N)
	for j := 0; j < d.D; j++ {
		first := d.X[j]
		constant := true
		sum := 0.0
		for i := 0; i < d.N; i++ {
			x := d.X[i*d.D+j]
			constant = constant && x == first
			sum += x
		}
		if constant {
			for i := 0; i < d.N; i++ {
				d.X[i*d.D+j] = 0
			}
			continue
		}
		mean := sum / n
		ss := 0.0
		for i := 0; i < d.N; i++ {
			dx := d.X[i*d.D+j] - mean
			ss += float64(dx * dx) // the conversion forbids a fused multiply-add
		}
		sd := math.Sqrt(ss / n)
		for i := 0; i < d.N; i++ {
			d.X[i*d.D+j] = (d.X[i*d.D+j] - mean) / sd
		}
	}
	d.Standardized = true
}
