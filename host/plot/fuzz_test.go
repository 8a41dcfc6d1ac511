package plot

import (
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/results/resultstest"
)

// FuzzFigures: no results file Decode accepts makes drawing its figures
// panic or loop. It is seeded with the results package's FuzzDecode
// corpus, which holds the files that once looped or panicked here. Run the
// fuzzer with
//
//	go test -run x -fuzz FuzzFigures -fuzztime 60s ./host/plot
func FuzzFigures(f *testing.F) {
	for _, seed := range resultstest.DecodeCorpus(f) {
		f.Add(seed)
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
