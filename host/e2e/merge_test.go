package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// shardScenario has a policy with diagnostics (ReMax) beside TS, on a few
// explicit checkpoints, so its shard files are small enough to edit.
const shardScenario = `
name: shards
environment: {means: [0.7, 0.5, 0.4], noise_sd: 0.5}
horizon: 40
runs: 6
seed: 5
checkpoints: [5, 20]
policies:
  - {plugin: ts, label: TS}
  - {plugin: remax, label: ReMax}
`

// jsonDoc is a results file as generic JSON, numbers kept exact (a
// replication index of 2^64-1 does not fit a float64).
type jsonDoc = map[string]any

func readDoc(t *testing.T, path string) jsonDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m jsonDoc
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// jsonAt follows path through a jsonDoc: jsonAt(d, "policies", 1, "traces")
// is d["policies"][1]["traces"]; jsonObj and jsonArr assert what it finds.
func jsonAt(v any, path ...any) any {
	for _, k := range path {
		switch k := k.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func jsonObj(v any, path ...any) map[string]any { return jsonAt(v, path...).(map[string]any) }
func jsonArr(v any, path ...any) []any          { return jsonAt(v, path...).([]any) }

// TestMergeRefusesCraftedShards: bench merge, given the shards of a real
// run edited as an attacker would, exits 2 with a message naming the
// file and the field, and writes nothing. Before, some of these panicked
// (replication 2^63 or 2^64-1, traces.diagnostics missing in the first
// shard, an extra checkpoint) and the others merged into wrong numbers.
func TestMergeRefusesCraftedShards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := writeFile(t, "shards.yaml", shardScenario)
	var parts [3]string
	for i := range parts {
		parts[i] = runTo(t, dir, fmt.Sprintf("part-%d.json", i), "--scenario", sc, "--shard", fmt.Sprintf("%d/3", i))
	}
	good := filepath.Join(dir, "good.json")
	if _, stderr, code := bench(t, "merge", "--out", good, parts[2], parts[0], parts[1]); code != 0 {
		t.Fatalf("merging the real shards: exit %d\n%s", code, stderr)
	}
	full := runTo(t, dir, "full.json", "--scenario", sc)
	if canonicalFile(t, good) != canonicalFile(t, full) {
		t.Fatal("the merged real shards differ from the unsharded run")
	}

	// craft writes a copy of shard i changed by mod under name.
	craft := func(t *testing.T, i int, name string, mod func(d jsonDoc)) string {
		t.Helper()
		d := readDoc(t, parts[i])
		mod(d)
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	remax := func(d jsonDoc) map[string]any { return jsonObj(d, "policies", 1) }
	for _, c := range []struct {
		name  string
		shard int // the shard crafted; the others are the real ones
		mod   func(d jsonDoc)
		want  []string
	}{
		{"replication 2^63", 1, func(d jsonDoc) { jsonArr(d, "shard", "replications")[0] = json.Number("9223372036854775808") },
			[]string{"shard.replications[0] = 9223372036854775808", "out of range"}},
		{"replication 2^64-1", 2, func(d jsonDoc) { jsonArr(d, "shard", "replications")[1] = json.Number("18446744073709551615") },
			[]string{"shard.replications[1] = 18446744073709551615", "out of range"}},
		{"replication of another shard", 1, func(d jsonDoc) {
			jsonArr(d, "shard", "replications")[0] = json.Number("0")
			// Its distribution would now name a replication the file's
			// finals no longer give, which reading refuses: left out,
			// as a file written before distributions were recorded.
			for i := range jsonArr(d, "policies") {
				delete(jsonObj(d, "policies", i), "distribution")
			}
		}, []string{"replication 0 is in both", "part-0.json", "shard.replications"}},
		{"traces.diagnostics missing in the first shard", 0, func(d jsonDoc) { delete(jsonObj(remax(d), "traces"), "diagnostics") },
			[]string{`"ReMax"`, "traces.diagnostics.fallbacks is missing"}},
		{"diagnostics missing in a later shard", 2, func(d jsonDoc) {
			delete(remax(d), "diagnostics")
			delete(jsonObj(remax(d), "traces"), "diagnostics")
		}, []string{`"ReMax"`, "diagnostics.fallbacks is missing"}},
		{"extra checkpoint", 1, func(d jsonDoc) {
			p := jsonObj(d, "policies", 0)
			p["checkpoints"] = append([]any{json.Number("1")}, jsonArr(p, "checkpoints")...)
			for _, m := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
				for _, k := range []string{"mean", "se"} {
					jsonObj(p, m)[k] = append([]any{json.Number("0")}, jsonArr(p, m, k)...)
				}
				tr := jsonObj(p, "traces", "metrics")
				tr[m] = append([]any{jsonArr(tr, m, 0)}, jsonArr(tr, m)...)
			}
		}, []string{`"TS"`, "checkpoints [1 5 20 40] differ from [5 20 40]"}},
		{"fewer checkpoints", 2, func(d jsonDoc) {
			p := jsonObj(d, "policies", 0)
			p["checkpoints"] = jsonArr(p, "checkpoints")[1:]
			for _, m := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
				for _, k := range []string{"mean", "se"} {
					jsonObj(p, m)[k] = jsonArr(p, m, k)[1:]
				}
				tr := jsonObj(p, "traces", "metrics")
				tr[m] = jsonArr(tr, m)[1:]
			}
		}, []string{`"TS"`, "checkpoints [20 40] differ from [5 20 40]"}},
		{"other plugin SHA-256", 1, func(d jsonDoc) { jsonObj(d, "policies", 0)["plugin_sha256"] = strings.Repeat("0", 64) },
			[]string{`"TS"`, "plugin_sha256", "different plugin executables"}},
		{"other bench version", 2, func(d jsonDoc) { jsonObj(d, "bench")["version"] = "v0.0.1" },
			[]string{"part-0.json", "bench.version", `"v0.0.1"`}},
		{"no bench version", 1, func(d jsonDoc) { delete(d, "bench") },
			[]string{"part-0.json", "bench.version", "none"}},
		{"distribution edited", 1, func(d jsonDoc) { jsonObj(d, "policies", 0, "distribution", "regret")["argmax"] = json.Number("0") },
			[]string{`"TS"`, "distribution.regret.argmax = 0, but the worst replication of final.regret is"}},
		{"mean near the largest float", 1, func(d jsonDoc) { jsonArr(d, "policies", 0, "regret", "mean")[2] = json.Number("1.7e308") },
			[]string{`"TS"`, "regret.mean[2] = 1.7e+308", "finite and within"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := parts
			files[c.shard] = craft(t, c.shard, fmt.Sprintf("crafted-%d.json", c.shard), c.mod)
			out := filepath.Join(t.TempDir(), "all.json")
			_, stderr, code := bench(t, append([]string{"merge", "--out", out}, files[:]...)...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitInput, stderr)
			}
			for _, w := range append(c.want, fmt.Sprintf("crafted-%d.json", c.shard)) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused merge wrote its --out file")
			}
		})
	}
}
