package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/results/resultstest"
)

// FuzzFigures: no results file Decode accepts makes drawing its figures
// panic or loop, or gives an SVG that is not well-formed XML (whatever its
// names hold). It is seeded with the results package's FuzzDecode
// corpus, which holds the files that once looped or panicked here. Run the
// fuzzer with
//
//	go test -run x -fuzz FuzzFigures -fuzztime 60s ./host/plot
func FuzzFigures(f *testing.F) {
	for _, seed := range resultstest.DecodeCorpus(f) {
		f.Add(seed)
	}
	// The report package's fixture with names XML cannot hold as they are.
	small, err := os.ReadFile(filepath.Join("..", "report", "testdata", "small.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(strings.NewReplacer(`"name": "small"`, `"name": "s\u0001\ufffe]]>"`, `"label": "TS"`, `"label": "T\uffff\u001b</text>"`, `"kkt_gap"`, `"kkt\ufffe\u0007"`).Replace(string(small))))
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
			s := vgsvg.New(2*vg.Inch, 1.5*vg.Inch)
			fig.Draw(draw.New(s))
			var b bytes.Buffer
			if _, err := s.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			d := xml.NewDecoder(&b)
			d.Strict = true
			for {
				_, err := d.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("figure %s: SVG is not well-formed: %v", fig.Name, err)
				}
			}
		}
	})
}
