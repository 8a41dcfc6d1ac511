// Package resultstest serves tests of the packages that read results
// files: the results reader's fuzz corpus, as seeds for their own fuzzers.
package resultstest

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// DecodeCorpus returns the inputs of the results package's FuzzDecode
// corpus (host/results/testdata/fuzz/FuzzDecode), which holds the files
// that once crashed bench merge and bench plot.
func DecodeCorpus(tb testing.TB) [][]byte {
	tb.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("resultstest: cannot locate the corpus")
	}
	dir := filepath.Join(filepath.Dir(here), "..", "testdata", "fuzz", "FuzzDecode")
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		_, lit, ok := strings.Cut(strings.TrimSpace(string(data)), "\n")
		lit, ok2 := strings.CutPrefix(lit, "[]byte(")
		lit, ok3 := strings.CutSuffix(lit, ")")
		s, err := strconv.Unquote(lit)
		if !ok || !ok2 || !ok3 || err != nil {
			tb.Fatalf("%s: not a []byte corpus entry", e.Name())
		}
		out = append(out, []byte(s))
	}
	return out
}
