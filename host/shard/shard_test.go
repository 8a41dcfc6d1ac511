package shard_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/plugins/remax/remax"
	"github.com/regretbench/regretbench/plugins/ts/thompson"
	"github.com/regretbench/regretbench/sdk"
)

var plugins = map[string]sdk.Plugin{
	"ts":    {Name: "ts", Version: "1", Params: thompson.Params, New: thompson.New},
	"remax": {Name: "remax", Version: "1", Params: remax.Params, Diagnostics: remax.Diagnostics, New: remax.New},
}

func local(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
	c, err := sdk.NewLocal(plugins[p.Plugin])
	if err != nil {
		return nil, err
	}
	d, _ := c.Describe(ctx)
	return &engine.Plugin{Conn: c, Desc: d}, nil
}

const yaml = `
name: m
environment: {means: [0.9, 0.85, 0.5], noise_sd: 0.3}
horizon: 300
runs: 45
seed: 3
policies: [{plugin: ts, label: TS}, {plugin: remax, label: ReMax}]
`

func runShard(t *testing.T, s shard.Spec) *results.File {
	t.Helper()
	sc, err := scenario.Parse("m.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Launch: local}
	if s.Count > 1 {
		opts.Replications = s.Replications(sc.Runs)
		opts.Traces = true
	}
	f, err := engine.Run(context.Background(), sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.Shard.Index, f.Shard.Count = s.Index, s.Count
	// Round-trip through JSON, as the CLI does.
	var b bytes.Buffer
	f.Encode(&b)
	g, err := results.Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func canonical(t *testing.T, f *results.File) string {
	for _, p := range f.Policies {
		p.Seconds = 0
	}
	var b bytes.Buffer
	f.Encode(&b)
	return b.String()
}

// TestMergeEqualsUnsharded: merging the 4 shards of a run gives the
// unsharded run's file exactly, timings aside, whatever the file order.
func TestMergeEqualsUnsharded(t *testing.T) {
	want := canonical(t, runShard(t, shard.Spec{Index: 0, Count: 1}))
	parts := []*results.File{runShard(t, shard.Spec{2, 4}), runShard(t, shard.Spec{0, 4}), runShard(t, shard.Spec{3, 4}), runShard(t, shard.Spec{1, 4})}
	got, err := shard.Merge(parts, []string{"p2", "p0", "p3", "p1"})
	if err != nil {
		t.Fatal(err)
	}
	if c := canonical(t, got); c != want {
		t.Fatalf("merged file differs from the unsharded run")
	}
}

func TestMergeRefuses(t *testing.T) {
	a, b, c := runShard(t, shard.Spec{0, 3}), runShard(t, shard.Spec{1, 3}), runShard(t, shard.Spec{2, 3})
	other := runShard(t, shard.Spec{2, 3})
	other.Scenario.Seed = 99
	for _, tc := range []struct {
		name  string
		files []*results.File
		want  string
	}{
		{"missing", []*results.File{a, b}, "missing shard(s) 2/3"},
		{"duplicate", []*results.File{a, b, b}, "both shard 1/3"},
		{"other seed", []*results.File{a, b, other}, "different scenarios"},
		{"other count", []*results.File{a, b, runShard(t, shard.Spec{1, 2})}, "of 3 shards"},
	} {
		_, err := shard.Merge(tc.files, []string{"a", "b", "c"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := shard.Merge([]*results.File{c, a, b}, []string{"c", "a", "b"}); err != nil {
		t.Errorf("complete set refused: %v", err)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{{"0/4", true}, {"3/4", true}, {"4/4", false}, {"-1/2", false}, {"1", false}, {"a/b", false}, {"0/0", false}} {
		_, err := shard.Parse(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("Parse(%q): err %v", tc.in, err)
		}
	}
	// Blocks cover 0..runs-1 exactly once.
	seen := map[uint64]int{}
	for i := 0; i < 7; i++ {
		for _, r := range (shard.Spec{Index: i, Count: 7}).Replications(45) {
			seen[r]++
		}
	}
	if len(seen) != 45 {
		t.Fatalf("coverage %d", len(seen))
	}
}
