package shard_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/shard"
)

// addDecodeCorpus seeds f with the results package's FuzzDecode corpus,
// which holds the files that once crashed bench merge and bench plot.
func addDecodeCorpus(f *testing.F) {
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
}

// FuzzMerge: no results file Decode accepts makes Merge panic, alone or
// as two shards (itself and a copy claiming the next shard index), and
// whatever Merge returns is a valid results file. Run the fuzzer with
//
//	go test -run x -fuzz FuzzMerge -fuzztime 60s ./host/shard
func FuzzMerge(f *testing.F) {
	addDecodeCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := results.Decode(data)
		if err != nil {
			return
		}
		b, _ := results.Decode(data)
		b.Shard.Index = (b.Shard.Index + 1) % b.Shard.Count
		for _, files := range [][]*results.File{{a}, {a, b}} {
			m, err := shard.Merge(files, []string{"a.json", "b.json"}[:len(files)])
			if err != nil {
				continue
			}
			if err := m.Check(); err != nil {
				t.Fatalf("Merge returned an invalid file: %v", err)
			}
		}
	})
}
