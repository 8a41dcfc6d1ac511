package sdk_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// greedyRand is a toy policy: epsilon-greedy with its replica's rng, so
// results depend on the seed, the replication index and the observations.
type greedyRand struct {
	s    sdk.Session
	r    sdk.Replica
	sum  []float64
	n    []float64
	last float64
}

func (g *greedyRand) Select(t int) int {
	if g.r.Rand.Float64() < g.s.Params.Float("eps") {
		return g.r.Rand.IntN(g.s.Arms)
	}
	best, bv := 0, math.Inf(-1)
	for i := range g.sum {
		if v := g.sum[i] / g.n[i]; v > bv {
			best, bv = i, v
		}
	}
	return best
}

func (g *greedyRand) Observe(t, arm int, reward float64) {
	g.sum[arm] += reward
	g.n[arm]++
	g.last = reward
}

func (g *greedyRand) Diagnose(out []float64) { out[0] = g.last }

var toy = sdk.Plugin{
	Name: "toy", Version: "0.0.1",
	Params:      []sdk.Param{{Name: "eps", Type: sdk.Float, Default: 0.1, Doc: "exploration rate"}},
	Diagnostics: []string{"last_reward"},
	New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
		return &greedyRand{s: s, r: r, sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}, nil
	},
}

// play drives conn through a full session with a deterministic fake
// environment and returns every arm chosen, flattened.
func play(t *testing.T, conn client.Conn, reps []uint64) []int32 {
	t.Helper()
	arms, _ := playDiag(t, conn, reps)
	return arms
}

// playDiag is play that also returns every diagnostic value, flattened.
func playDiag(t *testing.T, conn client.Conn, reps []uint64) ([]int32, []float64) {
	t.Helper()
	ctx := context.Background()
	const K, T = 3, 50
	s, err := conn.Open(ctx, &client.OpenRequest{Arms: K, Horizon: T, Replications: reps, Seed: 7,
		Family: sdk.Gaussian, NoiseSD: 1, NoiseKnown: true, InitPulls: 1, Params: map[string]any{"eps": 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	var all []int32
	var diag []float64
	var prevA []int32
	var prevR []float64
	for round := 1; round <= T; round++ {
		res, err := s.Step(ctx, &client.Step{Round: round, PrevArms: prevA, PrevRewards: prevR, WantDiag: round%10 == 0})
		if err != nil {
			t.Fatal(err)
		}
		if round <= K {
			for i, a := range res.Arms {
				if int(a) != round-1 {
					t.Fatalf("round %d replication %d: init pull arm %d, want %d", round, i, a, round-1)
				}
			}
		}
		if round%10 == 0 {
			if len(res.Diagnostics) != 1 || len(res.Diagnostics[0]) != len(reps) {
				t.Fatalf("round %d: diagnostics shape %v", round, res.Diagnostics)
			}
			diag = append(diag, res.Diagnostics[0]...)
		}
		all = append(all, res.Arms...)
		prevA = append(prevA[:0], res.Arms...)
		prevR = prevR[:0]
		for i, a := range res.Arms {
			prevR = append(prevR, float64(a)*0.5+float64((int(reps[i])*7+round)%5)*0.1)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return all, diag
}

// TestLocalAndGRPCAgree: the same session played in process and over
// go-plugin, with rounds on the step socket, the Steps stream or unary
// Step, gives the same arms and diagnostics, bit for bit.
func TestLocalAndGRPCAgree(t *testing.T) {
	reps := make([]uint64, 100)
	for i := range reps {
		reps[i] = uint64(i)
	}
	local, err := client.NewLocal(toy)
	if err != nil {
		t.Fatal(err)
	}
	wantArms, wantDiag := playDiag(t, local, reps)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc, err := client.ServeInProcess(ctx, toy)
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]client.StartOptions{
		"socket": {},
		"stream": {NoSocket: true},
		"unary":  {NoStream: true},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := client.Attach(rc, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			d, err := c.Describe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != "toy" || d.ProtocolVersion != client.ProtocolVersion || len(d.Params) != 1 || d.Params[0].Default != 0.1 {
				t.Fatalf("describe: %+v", d)
			}
			arms, diag := playDiag(t, c, reps)
			if !reflect.DeepEqual(arms, wantArms) {
				t.Fatalf("arms differ from in-process arms")
			}
			if len(diag) != len(wantDiag) {
				t.Fatalf("%d diagnostic values, want %d", len(diag), len(wantDiag))
			}
			for i := range diag {
				if math.Float64bits(diag[i]) != math.Float64bits(wantDiag[i]) {
					t.Fatalf("diagnostic value %d: %v, want %v", i, diag[i], wantDiag[i])
				}
			}
		})
	}
}

// TestBatchSplitInvariance: a replication's choices depend only on (seed,
// index), not on which batch it is served in.
func TestBatchSplitInvariance(t *testing.T) {
	local, _ := client.NewLocal(toy)
	all := play(t, local, []uint64{0, 1, 2, 3})
	part := play(t, local, []uint64{2, 3})
	for round := 0; round < 50; round++ {
		for j := 0; j < 2; j++ {
			if all[round*4+2+j] != part[round*2+j] {
				t.Fatalf("round %d replication %d: arm differs between batch splits", round+1, 2+j)
			}
		}
	}
}

func TestOpenRejectsBadParams(t *testing.T) {
	local, _ := client.NewLocal(toy)
	ctx := context.Background()
	for name, params := range map[string]map[string]any{
		"unknown": {"epsilon": 0.1},
		"type":    {"eps": "high"},
	} {
		_, err := local.Open(ctx, &client.OpenRequest{Arms: 2, Horizon: 5, Replications: []uint64{0}, InitPulls: 1, Params: params})
		if err == nil {
			t.Errorf("%s: Open accepted %v", name, params)
		}
	}
}

// TestRewardSD: a policy gets the gaussian sd only when it is declared
// known, positive and finite; bernoulli gets the largest {0,1} sd.
func TestRewardSD(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    sdk.Session
		want float64
		err  string
	}{
		{"known", sdk.Session{Family: sdk.Gaussian, NoiseSD: 0.15, NoiseKnown: true}, 0.15, ""},
		{"unknown", sdk.Session{Family: sdk.Gaussian, NoiseSD: 0.15}, 0, "known noise sd"},
		{"zero", sdk.Session{Family: sdk.Gaussian, NoiseKnown: true}, 0, "want a finite value > 0"},
		{"inf", sdk.Session{Family: sdk.Gaussian, NoiseSD: math.Inf(1), NoiseKnown: true}, 0, "want a finite value > 0"},
		{"bernoulli", sdk.Session{Family: sdk.Bernoulli}, 0.5, ""},
		{"other", sdk.Session{Family: "poisson"}, 0, `unsupported reward family "poisson"`},
	} {
		sd, err := tc.s.RewardSD()
		if tc.err == "" && (err != nil || sd != tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, sd, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: got %v, %v; want an error containing %q", tc.name, sd, err, tc.err)
		}
	}
}
