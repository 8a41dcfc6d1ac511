package gate_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/internal/testbin"
)

// TestGateMemory: bench gate, the real binary, reads results files in
// bounded memory, whatever they hold: traces are checked and dropped, the
// numbers it keeps are bounded by results.MaxNumbers and the values it
// decodes whole by results.MaxText, and a file beyond a bound is refused
// with exit 2 and an error naming the file, the field and the bound,
// never "fatal error: out of memory". A 1 GiB file of final values took
// 2.1 GB and died under a 4 GB address-space limit. Each case's peak
// resident set, less that of a gate on a tiny file, must stay within its
// bound (the case's numbers kept and buffers, not the file's size).
func TestGateMemory(t *testing.T) {
	if os.Getenv(gateChild) != "" {
		gateChildMain()
		return
	}
	if testing.Short() {
		t.Skip("writes 150 MB of results files and runs bench gate on them")
	}
	dir := t.TempDir()
	if err := testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench", Name: "bench"}); err != nil {
		t.Fatal(err)
	}
	bench := filepath.Join(dir, "bench")

	tiny := filepath.Join(dir, "tiny.json")
	writeTraced(t, tiny, 20, 10)
	_, _, rss0 := gateRun(t, bench, tiny)

	traced := filepath.Join(dir, "traced.json")
	writeTraced(t, traced, 1000, 1200) // 4.8 million numbers in traces, ~100 MB
	finals := filepath.Join(dir, "finals.json")
	writeCompact(t, finals, results.MaxNumbers/4+1, "{}") // one number more than MaxNumbers
	params := filepath.Join(dir, "params.json")
	writeCompact(t, params, 10, `{"x": "`+strings.Repeat("a", results.MaxText)+`"}`)

	for _, tc := range []struct {
		name     string
		path     string
		wantCode int
		wantErr  string // in stderr, after "results PATH: "
		maxRSS   int64  // bytes, above a gate on a tiny file
	}{
		// Traces are not kept: about what the tiny file takes. Kept, their
		// 4.8 million numbers would take 38 MB, and their copy as much.
		{"traces", traced, 0, "", 40 << 20},
		// The final values of 4 million replications: refused at the
		// bound, having kept MaxNumbers numbers (and their copy).
		{"final values beyond MaxNumbers", finals, 2,
			fmt.Sprintf("policies[0].final.regret_not_under[%d]: more than %d numbers outside traces (128 MiB in memory)", results.MaxNumbers/4-12, results.MaxNumbers),
			3 * results.MaxNumbers * 8},
		// A parameter of 16 MiB: refused once MaxText is read (the
		// decoder's buffer, which doubles, the value and GC's headroom).
		{"a value beyond MaxText", params, 2, "policies[0].params: more than 16 MiB of JSON in the values bench decodes whole", 8 * results.MaxText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr, rss := gateRun(t, bench, tc.path)
			t.Logf("peak RSS %.1f MB, %.1f MB above a tiny file's; exit %d; stderr:\n%s", float64(rss)/1e6, float64(rss-rss0)/1e6, code, stderr)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d", code, tc.wantCode)
			}
			if strings.Contains(stderr, "fatal error") {
				t.Errorf("bench gate died: %s", stderr)
			}
			if want := "results " + tc.path + ": " + tc.wantErr; tc.wantErr != "" && !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q", want)
			}
			if rss-rss0 > tc.maxRSS {
				t.Errorf("peak RSS %.1f MB above a tiny file's, want at most %.1f MB", float64(rss-rss0)/1e6, float64(tc.maxRSS)/1e6)
			}
		})
	}
}

// gateChild names, in the environment of the test binary re-executed by
// gateRun, the bench binary and the file it gates.
const gateChild = "GATE_MEMORY_TEST_CHILD"

// gateRun runs bench gate on path against itself and returns its exit
// code, stderr and peak resident set in bytes. It runs it from a re-executed
// test binary (gateChildMain), which reports bench's peak: a process
// started from this one counts this one's resident set in its own peak
// (Go starts it with vfork, and exec keeps the peak of the memory it
// leaves), and this one holds the files it wrote.
func gateRun(t *testing.T, bench, path string) (int, string, int64) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestGateMemory$")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), gateChild+"="+bench+"\n"+path)
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("bench gate %s did not end within 5 minutes", path)
	}
	var code int
	var rss int64
	if _, err := fmt.Sscanf(stdout.String(), "exit %d maxrss %d", &code, &rss); err != nil {
		t.Fatalf("the child's report %q: %v; stderr:\n%s", stdout.String(), err, stderr.String())
	}
	return code, stderr.String(), rss
}

// gateChildMain runs bench gate as gateRun asks and prints its exit code
// and peak resident set in bytes.
func gateChildMain() {
	bench, path, _ := strings.Cut(os.Getenv(gateChild), "\n")
	cmd := exec.Command(bench, "gate", path, path)
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "GOGC=100", "GOMEMLIMIT=off")
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Printf("exit %d maxrss %d\n", cmd.ProcessState.ExitCode(), ru.Maxrss<<10)
	os.Exit(0)
}

// writeTraced writes a results file of one policy over nrep replications
// with ncp checkpoints and traces, as bench run --shard writes them.
func writeTraced(t *testing.T, path string, nrep, ncp int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	cps := make([]int, ncp)
	for c := range cps {
		cps[c] = (c + 1) * 10
	}
	metrics := map[string][][]float64{}
	for _, name := range metric.Names {
		rows := make([][]float64, ncp)
		for c := range rows {
			rows[c] = make([]float64, nrep)
			for i := range rows[c] {
				rows[c][i] = rng.Float64() * float64(cps[c])
			}
		}
		metrics[name] = rows
	}
	p := &results.Policy{Label: "TS", Plugin: "ts", PluginVersion: "1", Params: map[string]any{}, Status: results.StatusOK}
	p.Summarize(cps, metrics, nil, true)
	f := &results.File{
		Schema: results.Schema,
		Scenario: results.Scenario{Name: "large", Family: "gaussian", Arms: 2, Horizon: cps[ncp-1], Runs: nrep, Seed: seed.Int(1), InitPulls: 1,
			Means: []float64{0.5, 0.4}, NoiseSD: 1, Checkpoints: cps},
		Shard:    results.Shard{Index: 0, Count: 1},
		Complete: true,
		Policies: []*results.Policy{p},
	}
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

// writeCompact writes a results file as a hostile author would, compact:
// one policy with the given params and nrep final values of 0 per metric
// (2 bytes each), at a single checkpoint.
func writeCompact(t *testing.T, path string, nrep int, params string) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(out, 1<<20)
	fmt.Fprintf(w, `{"schema":%q,"scenario":{"name":"z","family":"gaussian","arms":2,"horizon":1,"runs":%d,"seed":1,"init_pulls":0,"means":[0.5,0.4],"noise_sd":1,"checkpoints":[1]},"shard":{"index":0,"count":1},"complete":true,"policies":[{"label":"TS","plugin":"ts","plugin_version":"1","params":%s,"status":"ok","checkpoints":[1],`, results.Schema, nrep, params)
	for _, m := range metric.Names {
		fmt.Fprintf(w, `%q:{"mean":[0],"se":[0]},`, m)
	}
	w.WriteString(`"final":{`)
	for i, m := range metric.Names {
		if i > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, `%q:[0`, m)
		for range nrep - 1 {
			w.WriteString(",0")
		}
		w.WriteString("]")
	}
	w.WriteString(`},"seconds":0}]}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
