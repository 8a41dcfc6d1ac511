package e2e_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/offpolicy"
	"github.com/regretbench/regretbench/host/roundslog"
)

// TestRoundsLogOffPolicy: bench run --rounds-log on a shipped dataset
// scenario with the shipped policies that report their probabilities
// (SquareCB, epsilon-greedy) writes a log from which IPS and SNIPS
// recover the value of every constant policy "always class k", known
// exactly from the dataset (the frequency of class k among the rows
// played), within four standard errors, with standard errors small enough
// to mean something; and whose rewards and regrets sum, replication by
// replication, to what the results file reports.
func TestRoundsLogOffPolicy(t *testing.T) {
	t.Parallel()
	const runs, horizon = 30, 120
	dir := t.TempDir()
	log := filepath.Join(dir, "rounds.csv.gz")
	out := runTo(t, dir, "r.json", "run", "--scenario", "contextual_wine", "--policy", "SquareCB", "--policy", "EpsGreedy",
		"--runs", fmt.Sprint(runs), "--horizon", fmt.Sprint(horizon), "--rounds-log", log)
	f := readResults(t, out)
	wine, err := dataset.Load("wine")
	if err != nil {
		t.Fatal(err)
	}

	type key struct {
		policy string
		rep    uint64
	}
	reward, regret := map[key]float64{}, map[key]float64{}
	played := map[string][]int{} // policy -> rounds of each class's rows
	n := 0
	err = roundslog.ReadFile(log, func(r *roundslog.Record) error {
		n++
		k := key{r.Policy, r.Replication}
		reward[k] += r.Reward
		regret[k] += r.Regret
		if played[r.Policy] == nil {
			played[r.Policy] = make([]int, wine.K)
		}
		played[r.Policy][wine.Y[r.Row]]++
		if !(r.Prob > 0 && r.Prob <= 1) || r.Class != r.Arm {
			return fmt.Errorf("%s replication %d round %d: probability %v, class %d, arm %d", r.Policy, r.Replication, r.T, r.Prob, r.Class, r.Arm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2*runs*horizon {
		t.Fatalf("%d records, want %d", n, 2*runs*horizon)
	}
	for _, p := range f.Policies {
		for i := range runs {
			k := key{p.Label, uint64(i)}
			wantReward := horizon * (1 - p.Final[metric.PVLoss][i])
			if math.Abs(reward[k]-wantReward) > 1e-9*horizon || regret[k] != p.Final[metric.Regret][i] {
				t.Errorf("%s replication %d: the log's rewards sum to %v and regrets to %v; the results say %v and %v",
					p.Label, i, reward[k], regret[k], wantReward, p.Final[metric.Regret][i])
			}
		}
		for class := range wine.K {
			truth := float64(played[p.Label][class]) / float64(runs*horizon)
			res, err := offpolicy.EvaluateFile(log, p.Label, offpolicy.Constant(class))
			if err != nil {
				t.Fatal(err)
			}
			if res.Records != runs*horizon || res.Replications != runs || !res.SEAcross {
				t.Errorf("%s: %d records of %d replications", p.Label, res.Records, res.Replications)
			}
			for name, est := range map[string]offpolicy.Estimate{"IPS": res.IPS, "SNIPS": res.SNIPS} {
				if math.Abs(est.Value-truth) > 4*est.SE || !(est.SE > 0 && est.SE < 0.1) {
					t.Errorf("%s, always class %d: %s %.4f ± %.4f, true value %.4f", p.Label, class, name, est.Value, est.SE, truth)
				}
			}
		}
	}
}

// TestRoundsLogSameBytes: the rounds log is the same bytes whatever the
// batch size and the jobs; a shard's log holds exactly the unsharded
// log's records of its replications; and writing a log changes no result.
func TestRoundsLogSameBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"run", "--scenario", "contextual_iris", "--policy", "SquareCB", "--policy", "EpsGreedy", "--policy", "LinUCB", "--runs", "6", "--horizon", "90"}
	logOf := func(name string, extra ...string) (results, log string) {
		log = filepath.Join(dir, name+".csv.gz")
		return runTo(t, dir, name+".json", append(append(args, extra...), "--rounds-log", log)...), log
	}
	refOut, refLog := logOf("ref")
	ref, err := os.ReadFile(refLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range [][]string{{"--batch", "1", "--jobs", "1"}, {"--batch", "4"}} {
		_, log := logOf(strings.Join(split, ""), split...)
		if got, err := os.ReadFile(log); err != nil || !bytes.Equal(got, ref) {
			t.Errorf("%v: the log differs from the default split's (%v)", split, err)
		}
	}
	// The audit (on by default in a contextual run) replays replications
	// drawn at random: what it chose is left out of the comparison.
	canonical := func(path string) string {
		t.Helper()
		f := readResults(t, path)
		f.Bench = nil
		for _, p := range f.Policies {
			p.Seconds, p.Audit = 0, nil
		}
		var b bytes.Buffer
		if err := f.Encode(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if plain := runTo(t, dir, "plain.json", args...); canonical(plain) != canonical(refOut) {
		t.Error("the results differ with --rounds-log")
	}

	// The shards' records are the full log's, replication by replication.
	lines := func(path string) []string {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		if ls[0] != roundslog.Header {
			t.Fatalf("%s: header %q", path, ls[0])
		}
		return ls[1:]
	}
	full := lines(refLog)
	if len(full) != 3*6*90 {
		t.Fatalf("%d records, want %d", len(full), 3*6*90)
	}
	var shards [2][]string
	for i := range shards {
		_, log := logOf(fmt.Sprintf("shard%d", i), "--shard", fmt.Sprintf("%d/2", i))
		shards[i] = lines(log)
	}
	// Shard 0 has replications 0-2, shard 1 3-5: each policy's block of
	// 6·90 lines in the full log is shard 0's block then shard 1's.
	var merged []string
	for p := range 3 {
		for _, s := range shards {
			merged = append(merged, s[p*3*90:(p+1)*3*90]...)
		}
	}
	if strings.Join(merged, "\n") != strings.Join(full, "\n") {
		t.Error("the shards' records are not the full log's")
	}
}

// TestRoundsLogRefused: --rounds-log on a context-free scenario, or on the
// results file itself, is an input error naming the flag, before any
// round; with --suite it is refused as a flag of one scenario's run.
func TestRoundsLogRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "r.csv.gz")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenario", "quick", "--rounds-log", log}, "--rounds-log logs the rounds of a contextual scenario (a context: block), for logged-data evaluation; scenario quick has none"},
		{[]string{"run", "--scenario", "contextual_iris", "--runs", "2", "--horizon", "10", "--out", log, "--rounds-log", log}, "--rounds-log " + log + ": is also the results file"},
		{[]string{"run", "--suite", "contextual", "--rounds-log", log}, "--rounds-log cannot be used with --suite"},
	} {
		out, errs, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(out, "Regret") {
			t.Errorf("bench %v: exit %d, stderr:\n%s\nwant exit 2 and %q, and no tables", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(log); err == nil {
		t.Errorf("a refused run wrote its log")
	}
}
