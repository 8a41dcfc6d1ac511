package dataset_test

import (
	"fmt"

	"github.com/regretbench/regretbench/host/dataset"
)

// Load a shipped dataset, standardise its features, and read a row and
// its label: a bandit environment shows the row as the context and pays
// 1 for the arm Y[i].
func ExampleLoad() {
	d, err := dataset.Load("iris")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.N, "rows,", d.D, "features,", d.K, "classes:", d.Classes)
	fmt.Println("raw row 0:", d.Row(0), "label", d.Y[0])
	d.Standardize()
	fmt.Printf("standardised row 0: %.3f\n", d.Row(0))
	// Output:
	// 150 rows, 4 features, 3 classes: [setosa versicolor virginica]
	// raw row 0: [5.1 3.5 1.4 0.2] label 0
	// standardised row 0: [-0.901 1.019 -1.340 -1.315]
}

// Each dataset's provenance, without loading it.
func ExampleLookup() {
	in, _ := dataset.Lookup("letter")
	fmt.Println(in.Title)
	fmt.Println(in.Package, in.File)
	fmt.Println(in.Rows, in.Features, in.Classes, "OpenML", in.OpenML)
	// Output:
	// Letter Image Recognition
	// r-cran-mlbench /usr/lib/R/site-library/mlbench/data/LetterRecognition.rda
	// 20000 16 26 OpenML 6
}
