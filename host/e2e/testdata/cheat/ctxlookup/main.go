// Command ctxlookup is a cheating contextual plugin for the end-to-end
// tests of contextual scenarios under the sandbox
// (contextual_sandbox_test.go), written as a third-party author would, on
// the public SDK and the public package host/dataset, which carries every
// shipped dataset and bench's own standardisation bit for bit. It learns
// nothing from its rewards about the features: it finds the row it is
// shown in a copy of the dataset and answers that row's class.
//
// Its parameters:
//
//   - dataset: a shipped dataset to carry ("iris"), or
//   - path: a private dataset file (the CSV of a scenario's dataset_file)
//     to read at Open, by its absolute path;
//   - match: "exact" looks each context up by its exact values (a table
//     keyed by the standardised row's bits) and answers the row's class
//     as the arm, or arm 0 when it finds no row; "norm" matches each
//     context to the row of the nearest Euclidean norm (an invariant of
//     a sealed run's orthogonal transform), and learns which arm each
//     class is from its rewards (a sealed run relabels the classes): it
//     tries the arm of the class's own number first, then the others not
//     yet known to be another class's, and keeps the first that pays.
//
// Its diagnostics: "loaded" 1 when it has its copy of the data, else 0;
// "errno" the error number of a failed open of path (13 EACCES, 2
// ENOENT), else 0; "found" the fraction of the contexts so far that it
// found in its copy (exact values, or a norm within 1e-9 relative).
package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"syscall"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/sdk"
)

// table is the cheat's copy of a dataset, standardised as bench does.
type table struct {
	exact map[string]int // row bits -> class
	norms []normRow      // sorted by norm
	errno int
	k     int
}

type normRow struct {
	norm  float64
	class int
}

var (
	mu     sync.Mutex
	tables = map[string]*table{}
)

// load returns the table of the dataset or file the parameters name,
// built once per process.
func load(name, path string) *table {
	mu.Lock()
	defer mu.Unlock()
	key := name + "\x00" + path
	if t, ok := tables[key]; ok {
		return t
	}
	t := &table{}
	tables[key] = t
	var d *dataset.Dataset
	var err error
	if path != "" {
		// Open it first by hand, so that the error number is its own.
		var f *os.File
		if f, err = os.Open(path); err == nil {
			f.Close()
			d, err = dataset.ReadFile(path)
		}
	} else {
		d, err = dataset.Load(name)
	}
	if err != nil {
		var no syscall.Errno
		if errors.As(err, &no) {
			t.errno = int(no)
		} else {
			t.errno = -1
		}
		fmt.Fprintf(os.Stderr, "ctxlookup: %v\n", err)
		return t
	}
	d.Standardize()
	t.k = d.K
	t.exact = make(map[string]int, d.N)
	for i := range d.N {
		r := d.Row(i)
		t.exact[bits(r)] = d.Y[i]
		t.norms = append(t.norms, normRow{norm(r), d.Y[i]})
	}
	sort.Slice(t.norms, func(i, j int) bool { return t.norms[i].norm < t.norms[j].norm })
	return t
}

func bits(x []float64) string {
	b := make([]byte, 0, 8*len(x))
	for _, v := range x {
		u := math.Float64bits(v)
		for s := 0; s < 64; s += 8 {
			b = append(b, byte(u>>s))
		}
	}
	return string(b)
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// byNorm returns the class of the row whose norm is nearest n, and
// whether that norm is n within 1e-9 relative.
func (t *table) byNorm(n float64) (int, bool) {
	i := sort.Search(len(t.norms), func(i int) bool { return t.norms[i].norm >= n })
	best := -1
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(t.norms) && (best < 0 || math.Abs(t.norms[j].norm-n) < math.Abs(t.norms[best].norm-n)) {
			best = j
		}
	}
	if best < 0 {
		return 0, false
	}
	return t.norms[best].class, math.Abs(t.norms[best].norm-n) <= 1e-9*math.Max(1, n)
}

// policy is one replication's cheat.
type policy struct {
	t           *table
	byNorm      bool
	k           int
	arm         []int    // class -> arm, -1 unknown
	tried       [][]bool // class -> arm tried and did not pay
	taken       []bool   // arm known to be a class's
	seen, found int
}

// class is the class of x by the table, and whether x was found.
func (p *policy) class(x []float64) (int, bool) {
	if p.byNorm {
		return p.t.byNorm(norm(x))
	}
	y, ok := p.t.exact[bits(x)]
	return y, ok
}

func (p *policy) Select(_ int, x []float64) (int, float64) {
	if p.t.exact == nil {
		return 0, 1
	}
	p.seen++
	y, ok := p.class(x)
	if ok {
		p.found++
	}
	if !p.byNorm {
		if !ok || y >= p.k {
			return 0, 1
		}
		return y, 1
	}
	if y >= p.k {
		return 0, 1
	}
	if a := p.arm[y]; a >= 0 {
		return a, 1
	}
	// The class's own number first (an open run does not relabel), then
	// the first arm not ruled out.
	if !p.taken[y] && !p.tried[y][y] {
		return y, 1
	}
	for a := range p.k {
		if !p.taken[a] && !p.tried[y][a] {
			return a, 1
		}
	}
	return 0, 1
}

func (p *policy) Observe(_ int, x []float64, arm int, reward float64) {
	if !p.byNorm || p.t.exact == nil {
		return
	}
	y, _ := p.class(x)
	if y >= p.k {
		return
	}
	if reward == 1 {
		p.arm[y], p.taken[arm] = arm, true
	} else {
		p.tried[y][arm] = true
	}
}

func (p *policy) Diagnose(out []float64) {
	out[0], out[1], out[2] = 0, float64(p.t.errno), 0
	if p.t.exact != nil {
		out[0] = 1
	}
	if p.seen > 0 {
		out[2] = float64(p.found) / float64(p.seen)
	}
}

func main() {
	str := func(name, def, doc string) sdk.Param {
		return sdk.Param{Name: name, Type: sdk.String, Default: def, Doc: doc}
	}
	sdk.Serve(sdk.Plugin{
		Name: "cheat-ctx-lookup", Version: "0.0.1",
		Params: []sdk.Param{
			str("dataset", "iris", "the shipped dataset to carry"),
			str("path", "", "a private dataset file to read instead"),
			{Name: "match", Type: sdk.String, Default: "exact", Allowed: []any{"exact", "norm"}, Doc: "exact values or norms"},
		},
		Diagnostics: []string{"loaded", "errno", "found"},
		NewContextual: func(s sdk.Session, _ sdk.Replica) (sdk.ContextualPolicy, error) {
			p := &policy{t: load(s.Params.String("dataset"), s.Params.String("path")), byNorm: s.Params.String("match") == "norm", k: s.Arms}
			p.arm = make([]int, s.Arms)
			p.tried = make([][]bool, s.Arms)
			for i := range p.arm {
				p.arm[i] = -1
				p.tried[i] = make([]bool, s.Arms)
			}
			p.taken = make([]bool, s.Arms)
			return p, nil
		},
	})
}
