package results

import (
	"strings"
	"testing"
)

// TestQuantifyHandComputed: the quantiles are stat.Empirical's, x(k) for
// the smallest k >= p·n of the sorted values, worked out by hand here;
// the worst replication is named by its global index, the lowest of ties.
func TestQuantifyHandComputed(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // 100 at index 0, 1 at index 99
	}
	tail := make([]float64, 20)
	for i := range tail {
		tail[i] = 1
	}
	tail[13] = 1000
	for _, tc := range []struct {
		name string
		xs   []float64
		reps []uint64
		want Quantiles
	}{
		// sorted 1 2 3 4 5: p·n = 1.25, 2.5, 3.75, 4.75, 4.95 -> k = 2, 3, 4, 5, 5.
		{"five", []float64{5, 1, 4, 2, 3}, nil, Quantiles{P25: 2, Median: 3, P75: 4, P95: 5, P99: 5, Max: 5, Argmax: 0}},
		// sorted 10 20 30 40: p·n = 1, 2, 3, 3.8, 3.96 -> k = 1, 2, 3, 4, 4;
		// the median is the lower middle value, not 25.
		{"four: the lower middle", []float64{10, 40, 20, 30}, nil, Quantiles{P25: 10, Median: 20, P75: 30, P95: 40, P99: 40, Max: 40, Argmax: 1}},
		// 1..100: p·n = 25, 50, 75, 95, 99 exactly.
		{"one to a hundred", hundred, nil, Quantiles{P25: 25, Median: 50, P75: 75, P95: 95, P99: 99, Max: 100, Argmax: 0}},
		// One replication in twenty dominates the mean (50.95) and shows
		// only in p99 and the max: p·n = 19 for p95 gives the 19th value.
		{"heavy tail", tail, nil, Quantiles{P25: 1, Median: 1, P75: 1, P95: 1, P99: 1000, Max: 1000, Argmax: 13}},
		// A shard's values, named by their global replications; of two
		// worst, the lower index (4, not 9, though 9 comes first).
		{"shard, tie", []float64{3, 7, 7, 1}, []uint64{12, 9, 4, 30}, Quantiles{P25: 1, Median: 3, P75: 7, P95: 7, P99: 7, Max: 7, Argmax: 4}},
		{"one replication", []float64{2.5}, []uint64{7}, Quantiles{P25: 2.5, Median: 2.5, P75: 2.5, P95: 2.5, P99: 2.5, Max: 2.5, Argmax: 7}},
		{"negative values", []float64{-1, -3, -2}, nil, Quantiles{P25: -3, Median: -2, P75: -1, P95: -1, P99: -1, Max: -1, Argmax: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := append([]float64(nil), tc.xs...)
			got, ok := Quantify(xs, tc.reps)
			if !ok || got != tc.want {
				t.Errorf("Quantify = %+v, %v; want %+v", got, ok, tc.want)
			}
			for i := range xs {
				if xs[i] != tc.xs[i] {
					t.Fatalf("Quantify reordered its input")
				}
			}
		})
	}
	if _, ok := Quantify(nil, nil); ok {
		t.Error("no values: ok")
	}
	if _, ok := Quantify([]float64{1, 2}, []uint64{0}); ok {
		t.Error("2 values for 1 replication: ok")
	}
}

// TestDistributionInFile: a run's file carries its distribution, which
// reads back; a file without one (written before it was recorded) still
// reads; one that disagrees with the finals, or holds a key of another
// case or name, is refused.
func TestDistributionInFile(t *testing.T) {
	withDist := func(edit func(*File)) *File {
		f := validFile()
		f.Scenario.Runs = 10
		f.Shard.Replications = []uint64{7, 9, 3} // finals 1, 2, 3
		f.FillDistributions()
		if edit != nil {
			edit(f)
		}
		return f
	}
	f := withDist(nil)
	if f.Policies[1].Distribution != nil {
		t.Error("a failed policy got a distribution")
	}
	want := Quantiles{P25: 1, Median: 2, P75: 3, P95: 3, P99: 3, Max: 3, Argmax: 3}
	g, err := Decode(encoded(t, f))
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Policies[0].Distribution; d == nil || d.Regret == nil || *d.Regret != want {
		t.Fatalf("read back %+v, want regret %+v", d, want)
	}
	if !strings.Contains(string(encoded(t, f)), `"distribution": {
        "regret": {
          "p25": 1,
          "median": 2,
          "p75": 3,
          "p95": 3,
          "p99": 3,
          "max": 3,
          "argmax": 3
        }
      }`) {
		t.Errorf("distribution not written as distribution.regret.{p25,median,p75,p95,p99,max,argmax}:\n%s", encoded(t, f))
	}
	old := validFile() // no distribution
	if g, err := Decode(encoded(t, old)); err != nil {
		t.Fatalf("a file without distribution: %v", err)
	} else if q, ok := g.RegretQuantiles(g.Policies[0]); !ok || q.Median != 2 || q.Argmax != 2 {
		t.Errorf("RegretQuantiles of an old file = %+v, %v", q, ok)
	}

	valid := string(encoded(t, f))
	for _, tc := range []struct {
		name, data, want string
	}{
		{"median moved", string(encoded(t, withDist(func(f *File) { f.Policies[0].Distribution.Regret.Median = 2.5 }))),
			`policies[0] "TS": distribution.regret.median = 2.5, but final.regret gives 2`},
		{"argmax local", string(encoded(t, withDist(func(f *File) { f.Policies[0].Distribution.Regret.Argmax = 2 }))),
			`policies[0] "TS": distribution.regret.argmax = 2, but the worst replication of final.regret is 3`},
		{"final moved", string(encoded(t, withDist(func(f *File) { f.Policies[0].Final["regret"][0] = 9 }))),
			`distribution.regret.p25 = 1, but final.regret gives 2`},
		{"unknown distribution", strings.Replace(valid, `"distribution": {`, `"distribution": {"underestimation": {},`, 1), `unknown field "underestimation"`},
		{"unknown quantile", strings.Replace(valid, `"p25": 1,`, `"p25": 1, "p50": 2,`, 1), `unknown field "p50"`},
		{"key of another case", strings.Replace(valid, `"p25": 1,`, `"p25": 1, "Median": 2,`, 1),
			`policies[0].distribution.regret: key "Median" differs from the field "median" only in case`},
		{"key twice", strings.Replace(valid, `"p25": 1,`, `"p25": 1, "p25": 1,`, 1), `key "p25" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode: %v, want an error with %q", err, tc.want)
			}
		})
	}
	// A policy a sequential gate stopped early holds the first
	// p.Replications of the file's replications.
	seq := validFile()
	seq.Scenario.Runs = 10
	seq.Shard.Replications = []uint64{7, 9, 3, 5}
	seq.Policies[0].Replications = 3
	seq.FillDistributions()
	if d := seq.Policies[0].Distribution; d == nil || d.Regret.Argmax != 3 {
		t.Errorf("stopped after 3 of 4 replications: distribution %+v, want the worst at replication 3", d)
	}
	if _, err := Decode(encoded(t, seq)); err != nil {
		t.Errorf("stopped after 3 of 4 replications: %v", err)
	}

	nilRegret := withDist(func(f *File) { f.Policies[0].Distribution.Regret = nil })
	if err := nilRegret.Check(); err == nil || !strings.Contains(err.Error(), "distribution.regret is missing") {
		t.Errorf("distribution without regret: %v", err)
	}
}
