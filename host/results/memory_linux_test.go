package results

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/internal/seed"
)

// memoryChild names, in the environment of a re-executed test binary, the
// results file that TestReadFileMemory's child reads.
const memoryChild = "RESULTS_MEMORY_TEST_FILE"

// TestReadFileMemory: reading a results file takes memory proportional to
// what it decodes to, not several copies of its text. A shard file of
// 1000 replications with traces (about 60 MB, as bench merge reads them)
// is read in a fresh process, whose peak resident set, less what the
// process held before reading, must stay within twice the file's size.
// Reading the whole file and then decoding it through a json.Decoder
// held the text twice and the decoder's doubling buffer: about 4 times
// the file, so that a file near MaxFileSize took 4.3 GB in bench gate.
func TestReadFileMemory(t *testing.T) {
	if path := os.Getenv(memoryChild); path != "" {
		memoryChildMain(path)
		return
	}
	if testing.Short() {
		t.Skip("writes and reads a 60 MB file")
	}
	path := filepath.Join(t.TempDir(), "shard.json")
	writeLargeFile(t, path, 1000, 600)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()

	cmd := exec.Command(os.Args[0], "-test.run=^TestReadFileMemory$")
	cmd.Env = append(os.Environ(), memoryChild+"="+path, "GOGC=100", "GOMEMLIMIT=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var before, peak int64 // kB
	if _, err := fmt.Sscanf(lastLine(out, "memory "), "memory %d %d", &before, &peak); err != nil {
		t.Fatalf("child's report: %v\n%s", err, out)
	}
	used := (peak - before) << 10
	ratio := float64(used) / float64(size)
	t.Logf("file %.1f MB; peak RSS %.1f MB before reading, %.1f MB after: %.2f× the file", float64(size)/1e6, float64(before<<10)/1e6, float64(peak<<10)/1e6, ratio)
	if ratio > 2 {
		t.Errorf("reading a %.1f MB results file took %.1f MB, %.2f times its size; want at most 2", float64(size)/1e6, float64(used)/1e6, ratio)
	}
}

// memoryChildMain reads path and prints the process's resident set before
// and its peak after, in kB, from /proc/self/status.
func memoryChildMain(path string) {
	before := procStatus("VmRSS")
	f, err := ReadFile(path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("memory %d %d\n", before, procStatus("VmHWM"))
	if len(f.Policies) == 0 { // keep f alive until VmHWM is read
		os.Exit(1)
	}
}

// procStatus returns the value in kB of a line of /proc/self/status.
func procStatus(key string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		panic(err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				panic(err)
			}
			return n
		}
	}
	panic("no " + key + " in /proc/self/status")
}

func lastLine(out []byte, prefix string) string {
	var last string
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, prefix) {
			last = line
		}
	}
	return last
}

// writeLargeFile writes a shard file of one policy over nrep replications
// with ncp checkpoints, traces included, as bench run --shard writes them:
// indented, with values of full precision.
func writeLargeFile(t *testing.T, path string, nrep, ncp int) {
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
	p := &Policy{Label: "TS", Plugin: "ts", PluginVersion: "1", Params: map[string]any{}, Status: StatusOK}
	p.Summarize(cps, metrics, nil, true)
	reps := make([]uint64, nrep)
	for i := range reps {
		reps[i] = uint64(i)
	}
	f := &File{
		Schema: Schema,
		Scenario: Scenario{Name: "large", Family: "gaussian", Arms: 2, Horizon: cps[ncp-1], Runs: nrep, Seed: seed.Int(1), InitPulls: 1,
			Means: []float64{0.5, 0.4}, NoiseSD: 1, Checkpoints: cps},
		Shard:    Shard{Index: 0, Count: 1, Replications: reps},
		Complete: true,
		Policies: []*Policy{p},
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	if err := f.Encode(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
