package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/internal/testbin"
	"github.com/regretbench/regretbench/sdk"
)

// TestImmediateResultsUnchanged: a shipped scenario without feedback:
// gives exactly the per-replication results the code before protocol 2
// gave (testdata/immediate, written by commit ec638bc's bench with the
// same flags). Only the host version, the plugins' checksums and the
// timings may differ.
func TestImmediateResultsUnchanged(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"two_arm", "ten_arm"} {
		t.Run(name, func(t *testing.T) {
			got := runTo(t, t.TempDir(), name+".json", "--scenario", name, "--runs", "10", "--horizon", "1000")
			if a, b := comparable(t, got), comparable(t, filepath.Join("testdata", "immediate", name+".json")); a != b {
				t.Fatalf("results of %s moved:\n%s\nwant\n%s", name, a, b)
			}
		})
	}
}

// comparable is a results file without what legitimately differs between
// builds: the host version, the plugins' checksums and the timings, and
// the scenario's description, which is free text about the experiment,
// not a result.
func comparable(t *testing.T, path string) string {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Bench = nil
	f.Scenario.Description = ""
	for _, p := range f.Policies {
		// What the machine did, not what the policy did: time, the
		// executable's checksum, the sandbox and the limits it ran under.
		p.Seconds, p.PluginSHA256, p.Sandbox, p.Limits = 0, "", "", nil
		// A summary of the finals hashed here (results.Check holds
		// it to them), added after the reference hashes were taken.
		p.Distribution = nil
		// Which replications an audit replays is drawn afresh each run
		// (a contextual run is audited by default); its verdict is
		// checked where audits are tested.
		p.Audit = nil
	}
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// spyStep is one round as the spy plugin recorded it.
type spyStep struct {
	Round       int           `json:"round"`
	PrevArms    []int32       `json:"prev_arms"`
	PrevRewards []float64     `json:"prev_rewards"`
	Arrivals    []sdk.Arrival `json:"arrivals"`
}

// TestDelayedFeedbackArrivals records what a plugin process receives under
// each feedback mode and replays the host's reward and delay streams: every
// reward arrives exactly at the round its delay makes it due (never before:
// arrival round > pulled round + delay), exactly once unless due after the
// horizon, with the arm pulled and that arm's next reward, ordered by
// replication then round; prev_rewards stay empty and prev_arms carry the
// arms pulled, forced rounds included.
func TestDelayedFeedbackArrivals(t *testing.T) {
	t.Parallel()
	dir := faultyPlugins(t)
	means := []float64{0.41, 0.73, 0.58}
	const n, T, initPulls, K = 3, 30, 2, 3
	for _, c := range []struct {
		name, yaml string
		fb         sdk.Feedback
	}{
		{"delay 0", "{delay: 0}", sdk.Feedback{Kind: sdk.Delay}},
		{"delay 4", "{delay: 4}", sdk.Feedback{Kind: sdk.Delay, Delay: 4}},
		{"geometric 3", "{delay: {geometric: 3}}", sdk.Feedback{Kind: sdk.Geometric, Mean: 3}},
		{"batch 7", "{batch: 7}", sdk.Feedback{Kind: sdk.Batch, Batch: 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spy := filepath.Join(t.TempDir(), "spy.jsonl")
			sc := writeFile(t, "spy.yaml", fmt.Sprintf(`
name: spy
environment: {means: [0.41, 0.73, 0.58], noise_sd: 0.5}
horizon: %d
runs: %d
seed: 11
init_pulls: %d
feedback: %s
policies: [{plugin: faulty-spy, label: Spy}]
`, T, n, initPulls, c.yaml))
			out := filepath.Join(t.TempDir(), "r.json")
			// The spy writes what it receives to the test's file: unconfined.
			if _, stderr, code := benchEnv(t, []string{"FAULTY_SPY_FILE=" + spy}, "--plugin-dir", dir, "--sandbox", "off", "--audit", "0", "--scenario", sc, "-q", "--out", out); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if f := readResults(t, out); f.Scenario.Feedback != c.fb.String() || f.Policies[0].Feedback != c.fb.String() {
				t.Errorf("results record feedback %q / %q, want %q", f.Scenario.Feedback, f.Policies[0].Feedback, c.fb)
			}
			recs := decodeJSONLines(t, spy)
			var open struct{ Open sdk.Session }
			raw, _ := json.Marshal(recs[0])
			json.Unmarshal(raw, &open)
			if open.Open.Feedback != c.fb {
				t.Errorf("the plugin's Session.Feedback is %+v, want %+v", open.Open.Feedback, c.fb)
			}

			// Replay: the arm and reward of every pull, and when it is due.
			e, err := env.New(sdk.Gaussian, means, 0.5, seed.Int(11))
			if err != nil {
				t.Fatal(err)
			}
			arm := func(r, i int) int32 {
				if r <= K*initPulls {
					return int32((r - 1) % K)
				}
				return int32((r + i) % K)
			}
			reward := make([][]float64, T+1)
			due := make([][]int, T+1)
			var delays [n]*rand.Rand
			for i := range n {
				delays[i] = e.Delays(uint64(i))
			}
			var streams [n]*env.Stream
			for i := range n {
				streams[i] = e.Stream(uint64(i))
			}
			for r := 1; r <= T; r++ {
				reward[r], due[r] = make([]float64, n), make([]int, n)
				for i := range n {
					reward[r][i] = streams[i].Pull(int(arm(r, i)))
					switch c.fb.Kind {
					case sdk.Delay:
						due[r][i] = r + c.fb.Delay + 1
					case sdk.Geometric:
						due[r][i] = r + env.GeometricDelay(delays[i], c.fb.Mean) + 1
					case sdk.Batch:
						due[r][i] = (r+c.fb.Batch-1)/c.fb.Batch*c.fb.Batch + 1
					}
				}
			}

			if len(recs) != T+1 {
				t.Fatalf("the plugin saw %d steps, want %d", len(recs)-1, T)
			}
			got := map[[2]int]int{} // (replication, pulled round) -> arrival round
			delayedSome := false
			for k, rec := range recs[1:] {
				var st spyStep
				raw, _ := json.Marshal(rec)
				if err := json.Unmarshal(raw, &st); err != nil {
					t.Fatal(err)
				}
				if st.Round != k+1 {
					t.Fatalf("step %d is round %d", k, st.Round)
				}
				if len(st.PrevRewards) != 0 {
					t.Errorf("round %d: prev_rewards %v under delayed feedback", st.Round, st.PrevRewards)
				}
				if st.Round > 1 {
					if len(st.PrevArms) != n {
						t.Fatalf("round %d: %d prev arms", st.Round, len(st.PrevArms))
					}
					for i, a := range st.PrevArms {
						if a != arm(st.Round-1, i) {
							t.Errorf("round %d, replication %d: told it pulled arm %d, want %d", st.Round, i, a, arm(st.Round-1, i))
						}
					}
				}
				for j, a := range st.Arrivals {
					key := [2]int{a.Index, a.Round}
					if prev, dup := got[key]; dup {
						t.Errorf("reward of round %d, replication %d arrived twice (rounds %d and %d)", a.Round, a.Index, prev, st.Round)
					}
					got[key] = st.Round
					if a.Index < 0 || a.Index >= n || a.Round < 1 || a.Round >= st.Round {
						t.Errorf("round %d: arrival %+v out of range", st.Round, a)
						continue
					}
					if c.fb.Kind == sdk.Delay && st.Round <= a.Round+c.fb.Delay {
						t.Errorf("round %d: the reward of round %d arrived before its delay %d allows", st.Round, a.Round, c.fb.Delay)
					}
					if want := due[a.Round][a.Index]; st.Round != want {
						t.Errorf("round %d: the reward of round %d, replication %d arrived, due at round %d", st.Round, a.Round, a.Index, want)
					}
					delayedSome = delayedSome || st.Round > a.Round+1
					if a.Arm != arm(a.Round, a.Index) || a.Reward != reward[a.Round][a.Index] {
						t.Errorf("round %d: arrival %+v, want arm %d reward %v", st.Round, a, arm(a.Round, a.Index), reward[a.Round][a.Index])
					}
					if j > 0 {
						p := st.Arrivals[j-1]
						if p.Index > a.Index || p.Index == a.Index && p.Round >= a.Round {
							t.Errorf("round %d: arrivals out of order: %+v then %+v", st.Round, p, a)
						}
					}
				}
			}
			for r := 1; r <= T; r++ {
				for i := range n {
					_, arrived := got[[2]int{i, r}]
					if d := due[r][i]; arrived != (d <= T) {
						t.Errorf("reward of round %d, replication %d (due at round %d): arrived %v", r, i, d, arrived)
					}
				}
			}
			if delayedSome != (c.fb != sdk.Feedback{Kind: sdk.Delay}) {
				t.Errorf("some reward arrived later than the next round: %v", delayedSome)
			}
		})
	}
}

// delayedScenario mixes a scenario-wide geometric delay with per-policy
// overrides, over the real plugins.
const delayedScenario = `
name: delayed
environment: {means: [0.5, 0.45, 0.3], noise_sd: 0.2}
horizon: 400
runs: 6
seed: 5
feedback: {delay: {geometric: 6}}
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB d=9, feedback: {delay: 9}}
  - {plugin: remax, label: ReMax batch=25, feedback: {batch: 25}}
`

// TestDelayedResultsIndependentOfSplit: under delayed feedback, results
// are the same whatever the batch size and however the replications are
// sharded (delays are keyed by replication, not by session).
func TestDelayedResultsIndependentOfSplit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := writeFile(t, "delayed.yaml", delayedScenario)
	full := runTo(t, dir, "full.json", "--scenario", sc)
	want := canonicalFile(t, full)
	if f := readResults(t, full); f.Scenario.Feedback != "geometric mean 6" || policyByLabel(f, "KL-UCB d=9").Feedback != "delay 9" ||
		policyByLabel(f, "ReMax batch=25").Feedback != "batch 25" || policyByLabel(f, "TS").Feedback != "geometric mean 6" {
		t.Errorf("feedback recorded: scenario %q, policies %q %q %q", f.Scenario.Feedback,
			f.Policies[0].Feedback, f.Policies[1].Feedback, f.Policies[2].Feedback)
	}
	for _, b := range []string{"1", "4"} {
		if got := canonicalFile(t, runTo(t, dir, "b"+b+".json", "--scenario", sc, "--batch", b)); got != want {
			t.Errorf("--batch %s: results differ from the default batch", b)
		}
	}
	parts := []string{"merge", "--out", filepath.Join(dir, "merged.json")}
	for i := range 2 {
		parts = append(parts, runTo(t, dir, fmt.Sprintf("s%d.json", i), "--scenario", sc, "--shard", fmt.Sprintf("%d/2", i)))
	}
	if _, stderr, code := bench(t, parts...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if canonicalFile(t, filepath.Join(dir, "merged.json")) != want {
		t.Error("merged shards differ from the unsharded run under delayed feedback")
	}
}

// TestDelayZeroIsImmediate: {delay: 0} plays through arrivals but gives a
// policy exactly what immediate feedback gives, so the results are those
// of the scenario without feedback:.
func TestDelayZeroIsImmediate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := strings.Replace(delayedScenario, "feedback: {delay: {geometric: 6}}\n", "", 1)
	base = strings.Replace(base, ", feedback: {delay: 9}", "", 1)
	base = strings.Replace(base, ", feedback: {batch: 25}", "", 1)
	imm := readResults(t, runTo(t, dir, "imm.json", "--scenario", writeFile(t, "imm.yaml", base)))
	zero := readResults(t, runTo(t, dir, "zero.json", "--scenario",
		writeFile(t, "zero.yaml", strings.Replace(base, "policies:", "feedback: {delay: 0}\npolicies:", 1))))
	for i, p := range imm.Policies {
		q := zero.Policies[i]
		if q.Feedback != "delay 0" || p.Feedback != "" {
			t.Errorf("%s: feedback %q and %q", p.Label, p.Feedback, q.Feedback)
		}
		for _, m := range []string{"regret", "underestimation", "regret_under"} {
			if fmt.Sprint(p.Final[m]) != fmt.Sprint(q.Final[m]) {
				t.Errorf("%s %s: delay 0 gives %v, immediate %v", p.Label, m, q.Final[m], p.Final[m])
			}
		}
	}
}

var (
	proto1Once sync.Once
	proto1Dir  string
	proto1Err  error
)

// proto1Plugins builds testdata/faulty with the SDK's regretbench_proto1
// tag, so that it serves protocol version 1 only, as a plugin built before
// protocol 2 would, under the names bench-plugin-faulty-spy (which records
// what it receives) and bench-plugin-old.
func proto1Plugins(t *testing.T) string {
	t.Helper()
	proto1Once.Do(func() {
		dir := filepath.Join(binDir, "proto1")
		if proto1Err = os.MkdirAll(dir, 0o755); proto1Err != nil {
			return
		}
		exe := filepath.Join(dir, "bench-plugin-faulty-spy")
		opts := testbin.Options{Tags: []string{"regretbench_proto1"}}
		if proto1Err = testbin.Build(dir, opts, testbin.Main{Pkg: "./testdata/faulty", Name: "bench-plugin-faulty-spy"}); proto1Err != nil {
			return
		}
		proto1Err = os.Link(exe, filepath.Join(dir, "bench-plugin-old"))
		proto1Dir = dir
	})
	if proto1Err != nil {
		t.Fatal(proto1Err)
	}
	return proto1Dir
}

// TestProtocol1Plugin: a plugin that speaks only protocol 1 still runs a
// scenario without feedback:, and is refused with exit 2, before any
// round, on one whose policy has delayed feedback, with an error naming
// the plugin, its protocol and the feedback.
func TestProtocol1Plugin(t *testing.T) {
	t.Parallel()
	dir := proto1Plugins(t)
	spy := filepath.Join(t.TempDir(), "spy.jsonl")
	spyEnv := []string{"FAULTY_SPY_FILE=" + spy}
	sc := func(feedback string) string {
		return writeFile(t, "p1.yaml", `
name: p1
environment: {means: [0.6, 0.4], noise_sd: 0.5}
horizon: 20
runs: 2
policies: [{plugin: faulty-spy, label: Old`+feedback+`}]
`)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	if _, stderr, code := benchEnv(t, spyEnv, "--plugin-dir", dir, "--sandbox", "off", "--audit", "0", "--scenario", sc(""), "-q", "--out", out); code != 0 {
		t.Fatalf("immediate feedback: exit %d\n%s", code, stderr)
	}
	if p := readResults(t, out).Policies[0]; p.Status != results.StatusOK {
		t.Fatalf("immediate feedback: %s %s", p.Status, p.Error)
	}
	if n := len(decodeJSONLines(t, spy)); n != 21 {
		t.Fatalf("immediate feedback: the plugin saw %d records, want open and 20 rounds", n)
	}
	os.Remove(spy)
	for _, fb := range []string{", feedback: {delay: 0}", ", feedback: {batch: 3}"} {
		_, stderr, code := benchEnv(t, spyEnv, "--plugin-dir", dir, "--sandbox", "off", "--audit", "0", "--scenario", sc(fb), "-q")
		if code != cli.ExitInput {
			t.Fatalf("%s: exit %d, want %d\n%s", fb, code, cli.ExitInput, stderr)
		}
		for _, want := range []string{"plugin faulty-spy", "protocol version 1", "needs protocol version 2", `"Old"`} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr %q does not say %q", fb, stderr, want)
			}
		}
		if _, err := os.Stat(spy); !os.IsNotExist(err) {
			t.Errorf("%s: the protocol 1 plugin was opened or stepped (%v)", fb, err)
		}
	}
	// bench plugins shows the protocol each plugin speaks.
	stdout, _, _ := bench(t, "plugins", "--plugin-dir", dir)
	if !strings.Contains(stdout, "protocol 1") {
		t.Errorf("bench plugins does not show protocol 1:\n%s", stdout)
	}
}

// TestResumeDelayed: --resume keeps a policy whose feedback is unchanged
// and reruns one whose feedback changed.
func TestResumeDelayed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	sc := func(d string) string {
		return writeFile(t, "resume.yaml", `
name: resume
environment: {means: [0.6, 0.4], noise_sd: 0.5}
horizon: 50
runs: 3
policies:
  - {plugin: ts, label: TS, feedback: {delay: `+d+`}}
  - {plugin: klucb, label: KL-UCB}
`)
	}
	if _, stderr, code := bench(t, "--scenario", sc("5"), "-q", "--out", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	_, stderr, code := bench(t, "--scenario", sc("5"), "-q", "--out", out, "--resume")
	if code != 0 || !strings.Contains(stderr, "already holds every policy") {
		t.Fatalf("unchanged feedback: exit %d\n%s", code, stderr)
	}
	_, stderr, code = bench(t, "--scenario", sc("6"), "-q", "--out", out, "--resume")
	if code != 0 || !strings.Contains(stderr, `rerunning "TS": feedback was delay 5, now delay 6`) || strings.Contains(stderr, `rerunning "KL-UCB"`) {
		t.Fatalf("changed feedback: exit %d\n%s", code, stderr)
	}
	if p := policyByLabel(readResults(t, out), "TS"); p.Feedback != "delay 6" {
		t.Errorf("TS feedback %q after resume, want delay 6", p.Feedback)
	}
}
