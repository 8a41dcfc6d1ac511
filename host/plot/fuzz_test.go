package plot

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/regretbench/regretbench/host/results"
)

// FuzzFigures: no results file Decode accepts makes drawing its figures
// panic or loop. It is seeded with the results package's FuzzDecode
// corpus, which holds the files that once looped or panicked here. Run the
// fuzzer with
//
//	go test -run x -fuzz FuzzFigures -fuzztime 60s ./host/plot
func FuzzFigures(f *testing.F) {
	dir := filepath.Join("..", "results", "testdata", "fuzz", "FuzzDecode")
	ents, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		_, lit, ok := strings.Cut(strings.TrimSpace(string(data)), "\n")
		lit, ok2 := strings.CutPrefix(lit, "[]byte(")
		lit, ok3 := strings.CutSuffix(lit, ")")
		s, err := strconv.Unquote(lit)
		if !ok || !ok2 || !ok3 || err != nil {
			f.Fatalf("%s: not a []byte corpus entry", e.Name())
		}
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := results.Decode(data)
		if err != nil {
			return
		}
		figs, err := Figures(file)
		if err != nil {
			return // no policy with results
		}
		for _, fig := range figs {
			// A small canvas: drawing, not resolution, is under test.
			c := vgimg.New(2*vg.Inch, 1.5*vg.Inch)
			fig.Draw(draw.New(c))
		}
	})
}
