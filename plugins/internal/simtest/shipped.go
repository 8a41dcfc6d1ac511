package simtest

import (
	"testing"

	"github.com/regretbench/regretbench/host/scenario"
)

// Shipped returns the true means and the noise sd of a shipped scenario
// (two_arm, ten_arm, movielens, obd, ...), so that benchmarks use the
// paper's instances from the one copy that bench runs instead of copies of
// the tables.
func Shipped(tb testing.TB, name string) (means []float64, sd float64) {
	tb.Helper()
	sc, err := scenario.Named(name)
	if err != nil {
		tb.Fatal(err)
	}
	return sc.TrueMeans(), sc.Environment.NoiseSD
}
