package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/scenario"
)

// progressCall is one call of Options.Progress.
type progressCall struct {
	label       string
	done, total int64
}

// progressLog keeps the Progress calls in the order they were made.
type progressLog struct {
	mu    sync.Mutex
	calls []progressCall
}

func (r *progressLog) add(label string, done, total int64) {
	r.mu.Lock()
	r.calls = append(r.calls, progressCall{label, done, total})
	r.mu.Unlock()
}

// checkProgress checks the calls of each policy against what
// Options.Progress promises: a first call with done 0, the same total,
// replications x horizon, in every call, done never decreasing, and done
// equal to the total at the end.
func checkProgress(t *testing.T, calls []progressCall, want map[string]int64) {
	t.Helper()
	byLabel := map[string][]progressCall{}
	for _, c := range calls {
		byLabel[c.label] = append(byLabel[c.label], c)
	}
	for label, total := range want {
		cs := byLabel[label]
		if len(cs) < 3 {
			t.Errorf("%s: %d calls, want a first one and more", label, len(cs))
			continue
		}
		if cs[0].done != 0 {
			t.Errorf("%s: first call done %d, want 0", label, cs[0].done)
		}
		for i, c := range cs {
			if c.total != total {
				t.Errorf("%s: call %d: total %d, want %d (replications x horizon) in every call", label, i, c.total, total)
				break
			}
			if i > 0 && c.done < cs[i-1].done {
				t.Errorf("%s: call %d: done went back from %d to %d", label, i, cs[i-1].done, c.done)
				break
			}
		}
		if last := cs[len(cs)-1]; last.done != total {
			t.Errorf("%s: last call done %d, want the total %d", label, last.done, total)
		}
	}
	for label := range byLabel {
		if _, ok := want[label]; !ok {
			t.Errorf("calls for %q, which is no policy", label)
		}
	}
}

// TestProgress: whatever the split into sessions (two concurrent ones by
// default, batches of unequal size, several at once, a shard's
// replications), each policy's progress is counted in replication-rounds
// with a fixed total from its first call, and never goes back although
// its sessions report concurrently. The old (round, horizon) calls could
// not tell a new session from a concurrent one, and bars grew their totals.
func TestProgress(t *testing.T) {
	sc := parse(t, small) // 70 runs x 400 rounds
	all := map[string]int64{"TS": 70 * 400, "KL-UCB": 70 * 400, "A": 70 * 400, "B": 70 * 400}
	for _, tc := range []struct {
		name string
		opts engine.Options
		want map[string]int64
	}{
		{"default batches", engine.Options{}, all},
		{"unequal batches, three at once", engine.Options{Batch: 16, Sessions: 3}, all},
		{"one session per replication", engine.Options{Batch: 1, Sessions: 4, Jobs: 1}, all},
		{"a shard's replications", engine.Options{Replications: []uint64{1, 4, 9, 16, 25}},
			map[string]int64{"TS": 5 * 400, "KL-UCB": 5 * 400, "A": 5 * 400, "B": 5 * 400}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r progressLog
			tc.opts.Progress = r.add
			run(t, sc, tc.opts)
			checkProgress(t, r.calls, tc.want)
		})
	}
}

// TestRunAllProgress: RunAll reports each job under its scenario's name,
// with the same promises as Run.
func TestRunAllProgress(t *testing.T) {
	a := parse(t, small)
	b := parse(t, `
name: other
environment: {family: gaussian, means: [0.5, 0.6], noise_sd: 0.2}
horizon: 300
runs: 80
seed: 9
policies:
  - {plugin: ts, label: TS}
`)
	var r progressLog
	_, _, err := engine.RunAll(context.Background(), []*scenario.Scenario{a, b}, engine.AllOptions{
		Options:  engine.Options{Launch: local},
		Jobs:     2,
		Progress: func(scen, label string, done, total int64) { r.add(scen+": "+label, done, total) },
	})
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, r.calls, map[string]int64{
		"small: TS": 70 * 400, "small: KL-UCB": 70 * 400, "small: A": 70 * 400, "small: B": 70 * 400,
		"other: TS": 80 * 300,
	})
}
