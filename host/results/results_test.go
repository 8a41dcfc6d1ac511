package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/seed"
)

// validFile is a small well-formed results file: two policies (one failed)
// over 3 replications with two checkpoints, as a shard file with traces.
func validFile() *File {
	series := func() Series { return Series{Mean: []float64{1, 2}, SE: []float64{0.1, 0.2}} }
	final := map[string][]float64{}
	traces := map[string][][]float64{}
	for _, m := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
		final[m] = []float64{1, 2, 3}
		traces[m] = [][]float64{{0, 1, 2}, {1, 2, 3}}
	}
	return &File{
		Schema: Schema,
		Scenario: Scenario{Name: "t", Family: "gaussian", Arms: 2, Horizon: 10, Runs: 3, Seed: seed.Int(1), InitPulls: 1,
			Means: []float64{0.5, 0.4}, NoiseSD: 1, Checkpoints: []int{5, 10}},
		Shard:    Shard{Index: 0, Count: 1},
		Complete: true,
		Policies: []*Policy{
			{Label: "TS", Plugin: "ts", PluginVersion: "1", Params: map[string]any{}, Status: StatusOK,
				Checkpoints: []int{5, 10}, Regret: series(), Under: series(), RegretUnder: series(), RegretNot: series(),
				Final: final, Diagnostics: map[string]DiagSeries{"gap": {Checkpoints: []int{5, 10}, Mean: []float64{1, 2}, SE: []float64{0, 0}}},
				Traces: &Traces{Metrics: traces, Diagnostics: map[string][][]float64{"gap": {{0, 0, 0}, {1, 1, 1}}}}},
			{Label: "Broken", Plugin: "x", Params: map[string]any{}, Status: StatusFailed, Error: "plugin x: crashed"},
		},
	}
}

func encoded(t testing.TB, f *File) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeValid(t *testing.T) {
	data := encoded(t, validFile())
	f, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if again := encoded(t, f); !bytes.Equal(again, data) {
		t.Errorf("decode/encode round trip differs:\n%s\nvs\n%s", again, data)
	}
}

// TestSecretSeedFile: a secret seed is written as the string "0x" + 64
// hex digits and reads back; an integer seed stays a JSON number, as in
// files written before secret seeds.
func TestSecretSeedFile(t *testing.T) {
	v := validFile()
	s, err := seed.Parse("0x" + strings.Repeat("0123456789abcdef", 4))
	if err != nil {
		t.Fatal(err)
	}
	v.Scenario.Seed = s
	data := encoded(t, v)
	if want := `"seed": "0x` + strings.Repeat("0123456789abcdef", 4) + `",`; !bytes.Contains(data, []byte(want)) {
		t.Errorf("the file lacks %s:\n%s", want, data)
	}
	f, err := Decode(data)
	if err != nil || f.Scenario.Seed != s {
		t.Fatalf("Decode: seed %v, %v; want %v", f.Scenario.Seed, err, s)
	}
	if !bytes.Contains(encoded(t, validFile()), []byte(`"seed": 1,`)) {
		t.Error("an integer seed is no longer a JSON number")
	}
}

// TestBadFiles is the catalogue of bad results files: each is refused with
// a message saying what is wrong, and nothing panics. bench merge and bench
// gate read files through ReadFile and exit 2 on these errors.
func TestBadFiles(t *testing.T) {
	valid := encoded(t, validFile())
	edit := func(f func(*File)) []byte {
		v := validFile()
		f(v)
		return encoded(t, v)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty file"},
		{"whitespace", []byte(" \n"), "empty file"},
		{"truncated", valid[:len(valid)/2], "not valid JSON (truncated?)"},
		{"truncated at the end", valid[:len(valid)-3], "not valid JSON (truncated?)"},
		{"not JSON", []byte("regret,1,2\n"), "not valid JSON"},
		{"JSON list", []byte("[1, 2]"), "cannot unmarshal array"},
		{"two documents", append(append([]byte{}, valid...), valid...), "data after the results object"},
		{"trailing garbage", append(append([]byte{}, valid...), "}x"...), "data after the results object"},
		{"unknown field", bytes.Replace(valid, []byte(`"complete"`), []byte(`"completed": true, "complete"`), 1), `unknown field "completed"`},
		{"wrong type", bytes.Replace(valid, []byte(`"arms": 2`), []byte(`"arms": "2"`), 1), "scenario.arms: cannot unmarshal string into int"},
		{"unknown field of a policy", bytes.Replace(valid, []byte(`"label": "TS"`), []byte(`"lable": "x", "label": "TS"`), 1), `policies[0]: unknown field "lable"`},
		{"unknown field of traces", bytes.Replace(valid, []byte(`"metrics": {`), []byte(`"metric": {}, "metrics": {`), 1), `policies[0].traces: unknown field "metric"`},
		{"unknown field of a series", bytes.Replace(valid, []byte(`"regret": {`), []byte(`"regret": {"median": [], `), 1), `policies[0].regret: unknown field "median"`},
		{"policies twice", bytes.Replace(valid, []byte(`"policies": [`), []byte(`"policies": [], "policies": [`), 1), `key "policies" appears twice`},
		{"traces twice", bytes.Replace(valid, []byte(`"traces": {`), []byte(`"traces": null, "traces": {`), 1), `policies[0]: key "traces" appears twice`},
		{"policies not an array", bytes.Replace(valid, []byte(`"policies": [`), []byte(`"policies": {}, "x": [`), 1), "policies: cannot unmarshal object into an array"},
		{"trace row not numbers", bytes.Replace(valid, []byte(`"regret": [
            [`), []byte(`"regret": [
            ["a"], [`), 1), "policies[0].traces.metrics.regret[0][0]: cannot unmarshal string into float64"},
		{"truncated in a trace", valid[:bytes.Index(valid, []byte(`"traces"`))+40], "not valid JSON (truncated?): policies[0].traces"},
		{"negative seed", bytes.Replace(valid, []byte(`"seed": 1`), []byte(`"seed": -1`), 1), "scenario.seed: invalid seed: want a non-negative integer"},
		{"fractional seed", bytes.Replace(valid, []byte(`"seed": 1`), []byte(`"seed": 1.5`), 1), "scenario.seed: invalid seed"},
		{"seed as a decimal string", bytes.Replace(valid, []byte(`"seed": 1`), []byte(`"seed": "1"`), 1), "scenario.seed: invalid seed: a string seed is a secret"},
		{"secret seed of 63 digits", bytes.Replace(valid, []byte(`"seed": 1`), []byte(`"seed": "0x`+strings.Repeat("a", 63)+`"`), 1), "scenario.seed: invalid seed: 0x followed by 63 hex digits"},
		{"wrong schema version", edit(func(f *File) { f.Schema = "regretbench/results/v2" }), `schema "regretbench/results/v2", want "regretbench/results/v1"`},
		{"no schema", edit(func(f *File) { f.Schema = "" }), `schema "", want`},
		{"arms and means", edit(func(f *File) { f.Scenario.Means = f.Scenario.Means[:1] }), "scenario.arms = 2 but 1 means"},
		{"no runs", edit(func(f *File) { f.Scenario.Runs = 0 }), "scenario.runs = 0"},
		{"no horizon", edit(func(f *File) { f.Scenario.Horizon = 0 }), "scenario.horizon = 0"},
		{"shard index", edit(func(f *File) { f.Shard.Index = 1 }), "shard 1/1"},
		{"shard count", edit(func(f *File) { f.Shard.Count = 0 }), "shard 0/0"},
		{"null policy", bytes.Replace(valid, []byte(`"policies": [`), []byte(`"policies": [null, `), 1), "policies[0]: null"},
		{"checkpoints short of T", edit(func(f *File) { f.Policies[0].Checkpoints = []int{5, 9} }), `policies[0] "TS": checkpoints must end at the horizon 10`},
		{"checkpoints not increasing", edit(func(f *File) { f.Policies[0].Checkpoints = []int{10, 10} }), `policies[0] "TS": checkpoints must increase`},
		{"mean length", edit(func(f *File) { f.Policies[0].Regret.Mean = []float64{1} }), `policies[0] "TS": regret has 1 means and 2 SEs for 2 checkpoints`},
		{"se length", edit(func(f *File) { f.Policies[0].RegretNot.SE = nil }), `regret_not_under has 2 means and 0 SEs`},
		{"final length", edit(func(f *File) { f.Policies[0].Final["regret_under"] = []float64{1} }), "final.regret_under has 1 values for 3 replications"},
		{"final missing", edit(func(f *File) { delete(f.Policies[0].Final, "underestimation") }), "final.underestimation has 0 values"},
		{"shard replications", edit(func(f *File) { f.Shard.Replications = []uint64{0, 2} }), "has 3 values for 2 replications"},
		{"trace checkpoints", edit(func(f *File) { f.Policies[0].Traces.Metrics["regret"] = f.Policies[0].Traces.Metrics["regret"][:1] }), "traces.metrics.regret has 1 checkpoints, want 2"},
		{"trace row", edit(func(f *File) { f.Policies[0].Traces.Metrics["regret"][1] = []float64{1} }), "traces.metrics.regret[1] has 1 values for 3 replications"},
		{"diagnostic length", edit(func(f *File) {
			f.Policies[0].Diagnostics["gap"] = DiagSeries{Checkpoints: []int{10}, Mean: []float64{1, 2}}
		}),
			`diagnostics.gap has 2 means and 0 SEs for 1 checkpoints`},
		{"diagnostic trace", edit(func(f *File) { f.Policies[0].Traces.Diagnostics["gap"] = [][]float64{{1}} }), "traces.diagnostics.gap"},
		{"overflowing number", bytes.Replace(valid, []byte(`"mean": [
          1,`), []byte(`"mean": [
          1e309,`), 1), "policies[0].regret.mean[0]: cannot unmarshal number 1e309 into float64"},
		{"mean near the largest float", edit(func(f *File) { f.Policies[0].Regret.Mean[1] = 1.7e308 }),
			`policies[0] "TS": regret.mean[1] = 1.7e+308: numbers must be finite and within ±1e+300`},
		{"se beyond MaxAbs", edit(func(f *File) { f.Policies[0].Under.SE[0] = -2e300 }), `underestimation.se[0] = -2e+300`},
		{"final beyond MaxAbs", edit(func(f *File) { f.Policies[0].Final["regret"][2] = 1e301 }), `final.regret[2] = 1e+301`},
		{"trace beyond MaxAbs", edit(func(f *File) { f.Policies[0].Traces.Metrics["regret_under"][1][0] = 1.7e308 }), `traces.metrics.regret_under[1][0] = 1.7e+308`},
		{"diagnostic beyond MaxAbs", edit(func(f *File) { f.Policies[0].Diagnostics["gap"].Mean[0] = 1.7e308 }), `diagnostics.gap.mean[0] = 1.7e+308`},
		{"diagnostic trace beyond MaxAbs", edit(func(f *File) { f.Policies[0].Traces.Diagnostics["gap"][1][2] = -1.7e308 }), `traces.diagnostics.gap[1][2] = -1.7e+308`},
		{"means beyond MaxAbs", edit(func(f *File) { f.Scenario.Means[0] = 1e308 }), `scenario.means[0] = 1e+308`},
		{"noise beyond MaxAbs", edit(func(f *File) { f.Scenario.NoiseSD = 1e301 }), `scenario.noise_sd[0] = 1e+301`},
		{"seconds beyond MaxAbs", edit(func(f *File) { f.Policies[0].Seconds = 1e301 }), `policies[0] "TS": seconds[0] = 1e+301`},
		{"replication 2^63", edit(func(f *File) { f.Shard.Replications = []uint64{0, 1 << 63, 2} }), "shard.replications[1] = 9223372036854775808: out of range for scenario.runs = 3"},
		{"replication 2^64-1", edit(func(f *File) { f.Shard.Replications = []uint64{0, 1, 1<<64 - 1} }), "shard.replications[2] = 18446744073709551615: out of range"},
		{"replication twice", edit(func(f *File) { f.Shard.Replications = []uint64{2, 0, 2} }), "shard.replications[2] = 2: already listed at shard.replications[0]"},
		{"more replications than runs", edit(func(f *File) { f.Shard.Replications = []uint64{0, 1, 2, 3} }), "shard.replications lists 4 replications but scenario.runs = 3"},
		{"diagnostic trace missing", edit(func(f *File) { f.Policies[0].Traces.Diagnostics = nil }), `policies[0] "TS": traces.diagnostics.gap is missing`},
		{"diagnostic trace extra", edit(func(f *File) { f.Policies[0].Traces.Diagnostics["other"] = [][]float64{{1, 2, 3}} }), `traces.diagnostics.other has no diagnostics.other`},
		{"diagnostic checkpoints beyond T", edit(func(f *File) {
			f.Policies[0].Diagnostics["gap"] = DiagSeries{Checkpoints: []int{5, 11}, Mean: []float64{1, 2}, SE: []float64{0, 0}}
		}), `diagnostics.gap.checkpoints must increase within 1..10, got [5 11]`},
		{"more diagnostics than a plugin may declare", edit(func(f *File) {
			p := f.Policies[0]
			for k := range MaxDiagnostics {
				name := fmt.Sprintf("d%d", k)
				p.Diagnostics[name] = DiagSeries{Checkpoints: []int{5, 10}, Mean: []float64{1, 2}, SE: []float64{0, 0}}
				p.Traces.Diagnostics[name] = [][]float64{{0, 0, 0}, {1, 1, 1}}
			}
		}), fmt.Sprintf(`policies[0] "TS": %d diagnostics, more than the %d a plugin may declare`, MaxDiagnostics+1, MaxDiagnostics)},
		{"failed without error", edit(func(f *File) { f.Policies[1].Error = "" }), `policies[1] "Broken": status failed without an error`},
		{"unknown status", edit(func(f *File) { f.Policies[0].Status = "done" }), `policies[0] "TS": unknown status "done"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Decode(c.data)
			if err == nil {
				t.Fatalf("no error; decoded %+v", f)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n\t%v\nlacks %q", err, c.want)
			}
			// Read without its traces (bench gate), the file is refused
			// too: their numbers are checked as read, their shape by Check.
			if f, err := decode(bytes.NewReader(c.data), true); err == nil {
				t.Errorf("read without traces: no error; decoded %+v", f)
			}
		})
	}
}

// TestDecodeWithoutTraces: a file read without its traces holds what it
// holds read with them, but no traces.
func TestDecodeWithoutTraces(t *testing.T) {
	data := encoded(t, validFile())
	f, err := decode(bytes.NewReader(data), true)
	if err != nil {
		t.Fatal(err)
	}
	if f.Policies[0].Traces != nil {
		t.Errorf("traces kept: %+v", f.Policies[0].Traces)
	}
	want := validFile()
	want.Policies[0].Traces = nil
	f.Policies[0].dropped = nil
	if got, want := encoded(t, f), encoded(t, want); !bytes.Equal(got, want) {
		t.Errorf("read without traces:\n%s\nwant\n%s", got, want)
	}
}

// TestReadFileNamesTheFile: errors start with the file's path, as merge
// and gate print them.
func TestReadFileNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(p, []byte(`{"schema": "x"`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p)
	if err == nil || !strings.HasPrefix(err.Error(), "results "+p+": ") {
		t.Errorf("error %v does not start with the path", err)
	}
}

// TestWriteFileAtomic: WriteFile replaces the file in one rename, leaves
// no temporary file behind, and on failure leaves an existing file whole.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	f := validFile()
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(p)
	// A value JSON cannot encode fails the write before the rename.
	f.Policies[0].Params["bad"] = func() {}
	if err := f.WriteFile(p); err == nil {
		t.Fatal("writing an unencodable file succeeded")
	}
	if now, _ := os.ReadFile(p); !bytes.Equal(now, old) {
		t.Error("a failed write changed the existing file")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want r.json alone", names)
	}
	// A directory that cannot take the temporary file fails cleanly too.
	if err := validFile().WriteFile(filepath.Join(dir, "missing", "r.json")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	var back File
	if err := json.Unmarshal(old, &back); err != nil {
		t.Errorf("the file written is not JSON: %v", err)
	}
}

// TestEncodePlainText: a results file writes < > & as they are, not as
// \u003c \u003e \u0026 (encoding/json's default HTML escaping), and reads
// back to the same file whatever its names hold.
func TestEncodePlainText(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{`<b>&"'`, `"label": "<b>&\"'"`},
		{"</text>]]>", `"label": "</text>]]>"`},
		{"ctl\x01\x1b[2J", `"label": "ctl\u0001\u001b[2J"`},
		{"non\uFFFE\uFFFF", "\"label\": \"non\uFFFE\uFFFF\""},
		{"R&D <3 \u2028", `"label": "R&D <3 \u2028"`},
	} {
		name := c.name
		f := validFile()
		f.Scenario.Name = name
		f.Scenario.Description = name
		f.Policies[0].Label = name
		f.Policies[0].Params = map[string]any{"note": name}
		f.Policies[1].Error = name
		data := encoded(t, f)
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(data, []byte(esc)) {
				t.Errorf("%q: the file holds %s", name, esc)
			}
		}
		if !bytes.Contains(data, []byte(c.want)) {
			t.Errorf("%q: the file lacks %s", name, c.want)
		}
		g, err := Decode(data)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if g.Scenario.Name != name || g.Policies[0].Label != name || g.Policies[0].Params["note"] != name || g.Policies[1].Error != name {
			t.Errorf("%q: read back %q %q %q %q", name, g.Scenario.Name, g.Policies[0].Label, g.Policies[0].Params["note"], g.Policies[1].Error)
		}
		if again := encoded(t, g); !bytes.Equal(again, data) {
			t.Errorf("%q: round trip differs", name)
		}
	}
}
