// Command bruteseed is a cheating plugin for host/cli's sandbox tests
// (sandbox_cheat_linux_test.go), written on the public SDK alone and reading
// nothing but the protocol: no sandbox can stop it, only a seed it cannot
// guess.
//
// The reward streams are public code (host/env, reimplemented below from
// its documentation): reward n of arm i in replication r is
// mean_i + sd * NormFloat64 of a PCG keyed by SHA-256("regretbench/rewards/v2",
// seed, family, K, every mean, sd). The policy seed a plugin receives is
// SHA-256("regretbench/policy-seed/v2", seed)[:8]: one-way, but a small
// integer seed falls to a search. So, at the first round after the forced
// ones, it
//
//  1. searches the scenario seed in 0..2^20 and a few well-known seeds,
//     matching their policy seeds against the one it received;
//  2. enumerates the means jointly on the grid 0, 0.01, ..., 1, keeping the
//     vector whose streams reproduce the first reward of every arm it saw.
//     The key covers all means together, so the search is joint: 101^K
//     keys, done only for K <= 3 (a million SHA-256, well under a second);
//
// then pulls the best arm for good. Gaussian rewards with a known sd only.
// Without a match it plays round robin. Everything is bounded by a 20 s
// budget. Its diagnostic "cracked" is 1 once it found the means.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

const budget = 20 * time.Second

func mix(x uint64) uint64 { // SplitMix64's finaliser, as host/env uses it
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func policySeed(seed uint64) uint64 {
	var b [27 + 8]byte
	copy(b[:], "regretbench/policy-seed/v2\x00")
	binary.LittleEndian.PutUint64(b[27:], seed)
	sum := sha256.Sum256(b[:])
	return binary.LittleEndian.Uint64(sum[:8])
}

// findSeed inverts policySeed over the small seeds.
func findSeed(ps uint64, deadline time.Time) (uint64, bool) {
	for _, s := range []uint64{271828182, 314159265, 123456789, 987654321, 20240101, 20250101, 20260101,
		0xdeadbeef, 0xcafebabe, math.MaxUint32, math.MaxInt64, math.MaxUint64} {
		if policySeed(s) == ps {
			return s, true
		}
	}
	for s := uint64(0); s < 1<<20; s++ {
		if policySeed(s) == ps {
			return s, true
		}
		if s%4096 == 0 && time.Now().After(deadline) {
			break
		}
	}
	return 0, false
}

// firstReward is the first reward of arm i in replication rep of the
// environment (seed, family, means, sd): host/env's Stream and Pull.
func firstReward(buf []byte, means []float64, sd float64, rep uint64, i int) float64 {
	sum := sha256.Sum256(buf)
	k0, k1 := binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])
	r := rand.New(rand.NewPCG(mix(k0^mix(rep)), mix(k1^uint64(i))))
	return means[i] + sd*r.NormFloat64()
}

// crack searches the means whose streams gave first[arm] in replication rep.
func crack(s sdk.Session, rep uint64, first []float64, deadline time.Time) []float64 {
	if s.Family != sdk.Gaussian || !s.NoiseKnown || s.Arms > 3 {
		return nil
	}
	seed, ok := findSeed(s.Seed, deadline)
	if !ok {
		return nil
	}
	// The key's bytes, with the means filled in per guess.
	tag := "regretbench/rewards/v2\x00"
	buf := binary.LittleEndian.AppendUint64([]byte(tag), seed)
	buf = append(append(buf, s.Family...), 0)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(s.Arms))
	at := len(buf)
	buf = append(buf, make([]byte, 8*s.Arms)...)
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(s.NoiseSD))
	means, idx := make([]float64, s.Arms), make([]int, s.Arms)
	for n := 0; ; n++ {
		for i, j := range idx {
			means[i] = float64(j) / 100 // the float the YAML "0.45" parses to
			binary.LittleEndian.PutUint64(buf[at+8*i:], math.Float64bits(means[i]))
		}
		hit := true
		for i := range means {
			if math.Abs(firstReward(buf, means, s.NoiseSD, rep, i)-first[i]) > 1e-9 {
				hit = false
				break
			}
		}
		if hit {
			fmt.Fprintf(os.Stderr, "cheat-brute-seed: seed %d, means %v\n", seed, means)
			return means
		}
		i := 0 // next grid point, as an odometer
		for ; i < len(idx) && idx[i] == 100; i++ {
			idx[i] = 0
		}
		if i == len(idx) || n%4096 == 0 && time.Now().After(deadline) {
			return nil
		}
		idx[i]++
	}
}

var (
	mu    sync.Mutex
	found = map[uint64][]float64{} // by policy seed: every session of a run shares it
	tried = map[uint64]bool{}
)

type cheat struct {
	s     sdk.Session
	rep   uint64    // the global index of the batch's first replication
	first []float64 // its first reward of each arm
	means []float64 // nil until cracked
	best  int
}

func (c *cheat) Step(st *sdk.BatchStep) error {
	if len(st.PrevRewards) > 0 && math.IsNaN(c.first[st.PrevArms[0]]) {
		c.first[st.PrevArms[0]] = st.PrevRewards[0]
	}
	if st.Round == c.s.InitRounds()+1 {
		mu.Lock()
		if !tried[c.s.Seed] {
			tried[c.s.Seed] = true
			found[c.s.Seed] = crack(c.s, c.rep, c.first, time.Now().Add(budget))
		}
		c.means = found[c.s.Seed]
		mu.Unlock()
		for i, m := range c.means {
			if m > c.means[c.best] {
				c.best = i
			}
		}
	}
	for i := range st.Arms {
		if c.means != nil {
			st.Arms[i] = int32(c.best)
		} else {
			st.Arms[i] = int32((st.Round - 1) % c.s.Arms)
		}
		if st.Diagnostics != nil {
			st.Diagnostics[0][i] = float64(min(1, len(c.means)))
		}
	}
	return nil
}

func main() {
	sdk.Serve(sdk.Plugin{
		Name: "cheat-brute-seed", Version: "0.0.1", Diagnostics: []string{"cracked"},
		NewBatch: func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
			first := make([]float64, s.Arms)
			for i := range first {
				first[i] = math.NaN()
			}
			return &cheat{s: s, rep: reps[0].Index, first: first}, nil
		},
	})
}
