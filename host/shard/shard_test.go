package shard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/plugins/remax/remax"
	"github.com/regretbench/regretbench/plugins/ts/thompson"
	"github.com/regretbench/regretbench/sdk"
)

var plugins = map[string]sdk.Plugin{
	"ts":    {Name: "ts", Version: "1", Params: thompson.Params, New: thompson.New},
	"remax": {Name: "remax", Version: "1", Params: remax.Params, Diagnostics: remax.Diagnostics, New: remax.New},
}

func local(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
	c, err := client.NewLocal(plugins[p.Plugin])
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
	other.Scenario.Seed = seed.Int(99)
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
		var se *shard.SpecError
		if err != nil && (!errors.As(err, &se) || se.Spec != tc.in || !strings.Contains(err.Error(), "want I/N")) {
			t.Errorf("Parse(%q): err %v, want a SpecError naming the spec", tc.in, err)
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

// clone deep-copies f through JSON, so a test case may edit it freely.
func clone(t *testing.T, f *results.File) *results.File {
	t.Helper()
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	var g results.File
	if err := json.Unmarshal(b.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// insertCheckpoint adds a checkpoint just before the horizon to policy i
// of f, with values in every series and trace, so that the file stays
// internally consistent but is no longer aligned with the other shards.
func insertCheckpoint(f *results.File, i int) {
	p := f.Policies[i]
	n := len(p.Checkpoints)
	ins := func(xs []float64) []float64 { return slices.Insert(xs, n-1, xs[n-1]) }
	p.Checkpoints = slices.Insert(slices.Clone(p.Checkpoints), n-1, p.Checkpoints[n-1]-1)
	for _, name := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
		s, _ := p.Metric(name)
		s.Mean, s.SE = ins(s.Mean), ins(s.SE)
		tr := p.Traces.Metrics[name]
		p.Traces.Metrics[name] = slices.Insert(tr, n-1, slices.Clone(tr[n-1]))
	}
}

// dropCheckpoint removes policy i's first checkpoint, likewise.
func dropCheckpoint(f *results.File, i int) {
	p := f.Policies[i]
	p.Checkpoints = p.Checkpoints[1:]
	for _, name := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
		s, _ := p.Metric(name)
		s.Mean, s.SE = s.Mean[1:], s.SE[1:]
		p.Traces.Metrics[name] = p.Traces.Metrics[name][1:]
	}
}

// TestMergeRefusesBadShards is the catalogue of shard sets that do not
// make one run: each is refused with an error naming the file at fault and
// the field, and none panics (several did: a replication index of 2^63 or
// 2^64-1, traces.diagnostics missing in the first shard, an extra
// checkpoint) or merges silently into wrong numbers (fewer checkpoints,
// diagnostics missing in a later shard, other plugin or bench builds).
func TestMergeRefusesBadShards(t *testing.T) {
	parts := []*results.File{runShard(t, shard.Spec{0, 3}), runShard(t, shard.Spec{1, 3}), runShard(t, shard.Spec{2, 3})}
	names := []string{"a.json", "b.json", "c.json"}
	const remax = 1 // policies[1] is ReMax, which has diagnostics
	for _, tc := range []struct {
		name string
		edit func(a, b, c *results.File)
		want []string
	}{
		{"replication 2^63", func(a, b, c *results.File) { b.Shard.Replications[0] = 1 << 63 },
			[]string{"b.json", "shard.replications[0] = 9223372036854775808", "out of range"}},
		{"replication 2^64-1", func(a, b, c *results.File) { c.Shard.Replications[2] = math.MaxUint64 },
			[]string{"c.json", "shard.replications[2] = 18446744073709551615", "out of range"}},
		{"replication = runs", func(a, b, c *results.File) { c.Shard.Replications[0] = 45 },
			[]string{"c.json", "shard.replications[0] = 45", "out of range"}},
		{"replication twice in one shard", func(a, b, c *results.File) { b.Shard.Replications[1] = b.Shard.Replications[0] },
			[]string{"b.json", "shard.replications[1] = 15", "already listed"}},
		{"replication in two shards", func(a, b, c *results.File) { c.Shard.Replications[0] = a.Shard.Replications[3] },
			[]string{"replication 3 is in both a.json and c.json", "shard.replications"}},
		{"replications overlap", func(a, b, c *results.File) {
			// Failed policies carry no per-replication data, so only the
			// count of replications can tell.
			for _, p := range c.Policies {
				*p = results.Policy{Label: p.Label, Plugin: p.Plugin, PluginVersion: p.PluginVersion, PluginSHA256: p.PluginSHA256,
					Params: p.Params, Status: results.StatusFailed, Error: "crashed"}
			}
			c.Shard.Replications = nil
		},
			[]string{"more than 45", "scenario.runs is 45"}},
		{"traces.diagnostics missing in the first shard", func(a, b, c *results.File) { a.Policies[remax].Traces.Diagnostics = nil },
			[]string{"a.json", `"ReMax"`, "traces.diagnostics.fallbacks is missing"}},
		{"diagnostics missing in a later shard", func(a, b, c *results.File) {
			c.Policies[remax].Diagnostics, c.Policies[remax].Traces.Diagnostics = nil, nil
		}, []string{"c.json", `"ReMax"`, "diagnostics.fallbacks is missing"}},
		{"extra diagnostic in a later shard", func(a, b, c *results.File) {
			p := b.Policies[remax]
			p.Diagnostics["extra"] = p.Diagnostics["fallbacks"]
			p.Traces.Diagnostics["extra"] = p.Traces.Diagnostics["fallbacks"]
		}, []string{"b.json", "diagnostics.extra is extra"}},
		{"extra checkpoint", func(a, b, c *results.File) { insertCheckpoint(b, 0) },
			[]string{"b.json", `"TS"`, "checkpoints", "differ"}},
		{"extra checkpoint in the first shard", func(a, b, c *results.File) { insertCheckpoint(a, 0) },
			[]string{"b.json", `"TS"`, "checkpoints", "in a.json"}},
		{"fewer checkpoints", func(a, b, c *results.File) { dropCheckpoint(c, 0) },
			[]string{"c.json", `"TS"`, "checkpoints", "differ"}},
		{"other plugin SHA-256", func(a, b, c *results.File) { b.Policies[0].PluginSHA256 = strings.Repeat("ab", 32) },
			[]string{"b.json", `"TS"`, "plugin_sha256", "different plugin executables"}},
		{"other plugin version", func(a, b, c *results.File) { c.Policies[remax].PluginVersion = "2" },
			[]string{"c.json", `"ReMax"`, "plugin_version"}},
		{"other params", func(a, b, c *results.File) { c.Policies[remax].Params["variance_inflation"] = 2.0 },
			[]string{"c.json", `"ReMax"`, "params"}},
		{"other bench version", func(a, b, c *results.File) { b.Bench = &results.BenchInfo{Version: "v9"} },
			[]string{"a.json", "b.json", "bench.version", `"v9"`}},
		{"no bench version", func(a, b, c *results.File) { c.Bench = nil },
			[]string{"a.json", "c.json", "bench.version", "none"}},
		{"other checkpoints in the scenario", func(a, b, c *results.File) { b.Scenario.Checkpoints = b.Scenario.Checkpoints[1:] },
			[]string{"a.json", "b.json", "scenario.checkpoints"}},
		{"other noise", func(a, b, c *results.File) { c.Scenario.NoiseSD = 0.5 },
			[]string{"a.json", "c.json", "scenario.noise_sd: 0.3 vs 0.5"}},
		{"other noise_known", func(a, b, c *results.File) { f := false; b.Scenario.NoiseKnown = &f },
			[]string{"a.json", "b.json", "scenario.noise_known: true vs false"}},
		{"overflowing value", func(a, b, c *results.File) { b.Policies[0].Traces.Metrics["regret"][0][0] = 1.7e308 },
			[]string{"b.json", `"TS"`, "traces.metrics.regret[0][0] = 1.7e+308", "finite and within"}},
		{"standard error overflows", func(a, b, c *results.File) {
			for k, f := range []*results.File{a, b, c} {
				for _, row := range f.Policies[0].Traces.Metrics["regret"] {
					for j := range row {
						row[j] = 1e300 * float64(1-2*((j+k)%2))
					}
				}
			}
		}, []string{"merged results", `"TS"`, "regret.se"}},
		{"shard count", func(a, b, c *results.File) { c.Shard.Count = 1 << 62 },
			[]string{"c.json", "shard.count"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, c := clone(t, parts[0]), clone(t, parts[1]), clone(t, parts[2])
			tc.edit(a, b, c)
			got, err := shard.Merge([]*results.File{a, b, c}, names)
			if err == nil {
				t.Fatalf("merged; regret %v", got.Policies[0].Regret.Mean)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n\t%v\nlacks %q", err, w)
				}
			}
		})
	}
	// A huge shard count with all files present is only missing shards:
	// the message lists a few, without walking 2^62 indices.
	big := []*results.File{clone(t, parts[0]), clone(t, parts[1]), clone(t, parts[2])}
	for _, f := range big {
		f.Shard.Count = 1 << 62
	}
	if _, err := shard.Merge(big, names); err == nil || !strings.Contains(err.Error(), "and 4611686018427387891 more") {
		t.Errorf("huge shard count: %v", err)
	}
	// The untouched shards still merge, and the inputs were not reordered.
	in := []*results.File{parts[2], parts[0], parts[1]}
	if _, err := shard.Merge(in, names); err != nil {
		t.Fatalf("the unedited shards: %v", err)
	}
	if in[0] != parts[2] {
		t.Error("Merge reordered its argument")
	}
}

// TestShardDistributions: each shard's distribution names its worst
// replication by its global index, and the merge's is the unsharded
// run's (TestMergeEqualsUnsharded compares the whole files).
func TestShardDistributions(t *testing.T) {
	full := runShard(t, shard.Spec{Index: 0, Count: 1})
	for i := range 3 {
		part := runShard(t, shard.Spec{Index: i, Count: 3})
		for k, p := range part.Policies {
			d := p.Distribution
			if d == nil || d.Regret == nil {
				t.Fatalf("shard %d/3 %q: no distribution", i, p.Label)
			}
			j := slices.Index(part.Shard.Replications, d.Regret.Argmax)
			if j < 0 {
				t.Fatalf("shard %d/3 %q: argmax %d is not one of its replications %v", i, p.Label, d.Regret.Argmax, part.Shard.Replications)
			}
			if p.Final["regret"][j] != d.Regret.Max || full.Policies[k].Final["regret"][d.Regret.Argmax] != d.Regret.Max {
				t.Errorf("shard %d/3 %q: argmax %d does not hold the max %v", i, p.Label, d.Regret.Argmax, d.Regret.Max)
			}
		}
	}
}
