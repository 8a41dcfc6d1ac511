package shard_test

import (
	"testing"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/results/resultstest"
	"github.com/regretbench/regretbench/host/shard"
)

// addDecodeCorpus seeds f with the results package's FuzzDecode corpus,
// which holds the files that once crashed bench merge and bench plot.
func addDecodeCorpus(f *testing.F) {
	for _, seed := range resultstest.DecodeCorpus(f) {
		f.Add(seed)
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
