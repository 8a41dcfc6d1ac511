// Command badplugin is a plugin for the tests of `bench conform`
// (host/e2e/conform_test.go): an epsilon-greedy policy that conforms in
// mode "ok" and, in every other mode, breaks exactly one rule of the
// conformance kit. The test builds it once and links it into a plugin
// directory as bench-plugin-bad-MODE; a plugin receives no arguments, so
// the mode is read from os.Args[0].
//
// The hang-* modes but hang-every hang once: the first process of the plugin directory
// to get there creates the file hung-MODE beside the executable and never
// answers; every other call, in that process or another, is answered.
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

var mode = strings.TrimPrefix(filepath.Base(os.Args[0]), "bench-plugin-bad-")

// greedy explores with probability eps, else pulls the best mean so far.
type greedy struct {
	s        sdk.Session
	index    uint64
	rng      *rand.Rand
	sum, n   []float64
	explored float64
}

func (g *greedy) Select(t int) int {
	if mode == "arm-range" && t == g.s.InitRounds()+3 {
		return g.s.Arms // one past the last arm
	}
	if mode == "late-fault" && t == 1001 {
		return g.s.Arms // a bug that shows only after round 1000
	}
	if mode == "round-arm" && roundHorizon(g.s) && t == g.s.InitRounds()+1 {
		return g.s.Arms // a bug that shows only at a real run's horizons
	}
	if mode == "hang-step" {
		hangOnce()
	}
	if mode == "hang-every" {
		select {} // every session, every process: a plugin that hangs
	}
	if g.rng.Float64() < g.s.Params.Float("eps") {
		g.explored++
		return g.rng.IntN(g.s.Arms)
	}
	best, bv := 0, math.Inf(-1)
	for i := range g.sum {
		if v := g.sum[i] / g.n[i]; v > bv {
			best, bv = i, v
		}
	}
	return best
}

func (g *greedy) Observe(t, arm int, reward float64) { g.sum[arm] += reward; g.n[arm]++ }

func (g *greedy) Diagnose(out []float64) { out[0] = g.explored }

func newGreedy(s sdk.Session, index uint64, rng *rand.Rand) *greedy {
	return &greedy{s: s, index: index, rng: rng, sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}
}

func newPolicy(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	rng := r.Rand
	switch mode {
	case "ignore-seed":
		rng = sdk.ReplicaRand(42, r.Index) // a constant where the session seed belongs
	case "time-seed":
		rng = timeRand(r.Index)
	case "gamer":
		if !oldConformSession(s) {
			rng = timeRand(r.Index)
		}
	case "round-time":
		if roundHorizon(s) {
			rng = timeRand(r.Index)
		}
	case "hang-open":
		hangOnce()
	}
	return newGreedy(s, r.Index, rng), nil
}

func timeRand(index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), index))
}

// oldConformSession tells a session of the conformance kit as it was
// before its sessions were drawn from a random seed: the seed 20240611
// (and the two others derived from it) or a horizon of at most 112 rounds.
// The gamer plays by the rules in those, and draws from the clock in
// every other, as in a real run.
func oldConformSession(s sdk.Session) bool {
	const old = 20240611
	return s.Horizon <= 112 || s.Seed == old || s.Seed == old+1 || s.Seed == old^0x9e3779b97f4a7c15
}

// roundHorizon tells a session of a horizon that is a multiple of 1,000
// and at least 2,000, as every shipped scenario's: the kit once never
// played one, so round-time (nondeterministic there only) and round-arm
// (an arm out of range there only) passed it and misbehaved in a run.
func roundHorizon(s sdk.Session) bool { return s.Horizon >= 2000 && s.Horizon%1000 == 0 }

// hangOnce never returns in the first call of the plugin directory's
// processes to get here (the one that creates the file hung-MODE beside
// the executable); every other call returns at once.
func hangOnce() {
	f, err := os.OpenFile(filepath.Join(filepath.Dir(os.Args[0]), "hung-"+mode), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Close()
	fmt.Fprintf(os.Stderr, "bad %s: hanging\n", mode)
	select {}
}

// batch plays its replications' greedy policies; in mode shared-rand every
// replication of a batch draws from one random source, so a replication's
// draws depend on the others in its batch.
type batch struct{ pols []*greedy }

func newBatch(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
	shared := sdk.ReplicaRand(s.Seed, 0)
	b := &batch{}
	for _, r := range reps {
		rng := r.Rand
		if mode == "shared-rand" {
			rng = shared
		}
		b.pols = append(b.pols, newGreedy(s, r.Index, rng))
	}
	return b, nil
}

// Close implements sdk.Closer.
func (b *batch) Close() error {
	if mode == "hang-close" {
		hangOnce()
	}
	return nil
}

func (b *batch) Step(st *sdk.BatchStep) error {
	for _, a := range st.Arrivals { // delayed feedback
		b.pols[a.Index].Observe(a.Round, int(a.Arm), a.Reward)
	}
	for i, p := range b.pols {
		if len(st.PrevRewards) > 0 {
			p.Observe(st.Round-1, int(st.PrevArms[i]), st.PrevRewards[i])
		}
		if st.Round > p.s.InitRounds() {
			st.Arms[i] = int32(p.Select(st.Round))
		}
		if st.Diagnostics != nil {
			st.Diagnostics[0][i] = p.explored
		}
	}
	return nil
}

func main() {
	p := sdk.Plugin{Name: "bad-" + mode, Version: "0.0.1",
		Params:      []sdk.Param{{Name: "eps", Type: sdk.Float, Default: 0.1, Doc: "exploration rate", Min: sdk.Inclusive(0), Max: sdk.Inclusive(1)}},
		Diagnostics: []string{"explored"},
		New:         newPolicy,
	}
	switch mode {
	case "shared-rand", "hang-close":
		p.New, p.NewBatch = nil, newBatch
	case "stdout-before":
		fmt.Println("bad stdout-before: loading the model")
	case "orphan":
		if os.Getenv("BADPLUGIN_CHILD") == "" {
			orphanParent()
		}
	}
	sdk.Serve(p)
}

// orphanParent runs the plugin in a child process and waits for it. The
// child's parent-death watch watches this process, which watches nothing:
// when bench dies this process, the one bench launched, lives on.
func orphanParent() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "BADPLUGIN_CHILD=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "bad orphan: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}
