// Package env is the bandit environment the host owns: true arm means and
// the reward streams, drawn with common random numbers (design §4).
//
// Nothing here is for plugins. The reward streams are keyed by the scenario
// seed together with the family, the true means and the noise sd, so a
// plugin cannot rebuild them: it never receives the scenario seed, only
// PolicySeed, a one-way function of it.
//
// An integer seed keys them by plain SHA-256 hashes (StreamsVersion): a
// plugin that guesses a published or small seed would still need the very
// means it is trying to learn, but one that enumerates candidate means can
// check each guess against the rewards it observes. A secret seed (256
// bits, seed.Seed.Secret) keys the policy seed, the reward streams and the
// delay streams by HMAC-SHA256 keyed by the secret (SecretStreamsVersion),
// so that none of them can be computed without it.
package env

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// StreamsVersion names the way reward streams are derived from an integer
// seed. Results files record it: runs with different versions face
// different rewards, so they cannot be paired or merged.
const StreamsVersion = "sha256-v2"

// SecretStreamsVersion names the way reward and delay streams are derived
// from a secret seed: HMAC-SHA256 keyed by the secret.
const SecretStreamsVersion = "hmac-sha256-v1"

// Streams is the streams version results files record for seed s:
// StreamsVersion for an integer seed, SecretStreamsVersion for a secret.
func Streams(s seed.Seed) string {
	if s.Secret() {
		return SecretStreamsVersion
	}
	return StreamsVersion
}

// Domain tags of the keyed derivations from a secret seed. Each HMAC keyed
// by the secret starts its message with one, so that no two uses share an
// output.
const (
	tagSecretPolicy  = "regretbench/secret/policy-seed/v1\x00"
	tagSecretRewards = "regretbench/secret/rewards/v1\x00"
	tagSecretDelays  = "regretbench/secret/delays/v1\x00"
)

// PolicySeed is the seed a plugin receives for the scenario seed s. For an
// integer seed, the first 8 bytes of SHA-256 over a domain tag and the
// integer; for a secret seed, the first 8 bytes of HMAC-SHA256 keyed by the
// secret over another domain tag, so that even a plugin that hashes every
// candidate seed cannot find the scenario seed it came from. It is
// one-way, and it depends on nothing else, so every policy of a scenario,
// every batch and every shard gets the same one and
// sdk.ReplicaRand(PolicySeed(s), r) is a replication's own randomness.
func PolicySeed(s seed.Seed) uint64 {
	if key, ok := s.Key(); ok {
		m := hmac.New(sha256.New, key[:])
		m.Write([]byte(tagSecretPolicy))
		return binary.LittleEndian.Uint64(m.Sum(nil))
	}
	n, _ := s.Uint64()
	h := sha256.New()
	h.Write([]byte("regretbench/policy-seed/v2\x00"))
	binary.Write(h, binary.LittleEndian, n)
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// Env is a stochastic K-armed bandit with fixed means.
type Env struct {
	Family  sdk.Family
	Means   []float64
	NoiseSD float64 // gaussian only

	key  [2]uint64 // rewardKey of an integer seed: every stream's key
	best int
	mu2  float64
	gaps []float64

	// Of a secret seed: the HMAC keys of the reward streams and of the
	// delay streams (secretKeys); key is then unused.
	secret              bool
	rewardMAC, delayMAC [sha256.Size]byte

	// changes, when set, move the means over the rounds (NewChanging);
	// the reward streams stay those of the initial means.
	changes   *Changes
	changeMAC [sha256.Size]byte // of a secret seed: the key of the change streams
}

// rewardKey is the key of every reward stream of an environment of an
// integer seed: SHA-256 over a domain tag, the seed, the family, the number
// of arms, every mean and the noise sd (as IEEE bits). Any change to the
// environment gives unrelated streams.
func rewardKey(n uint64, family sdk.Family, means []float64, noiseSD float64) [2]uint64 {
	h := sha256.New()
	h.Write([]byte("regretbench/rewards/v2\x00"))
	binary.Write(h, binary.LittleEndian, n)
	writeEnv(h, family, means, noiseSD)
	sum := h.Sum(nil)
	return [2]uint64{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])}
}

// writeEnv writes what keys an environment's streams besides the seed: the
// family, the number of arms, every mean and the noise sd (as IEEE bits).
func writeEnv(h hash.Hash, family sdk.Family, means []float64, noiseSD float64) {
	h.Write([]byte(family))
	h.Write([]byte{0})
	binary.Write(h, binary.LittleEndian, uint64(len(means)))
	for _, m := range means {
		binary.Write(h, binary.LittleEndian, math.Float64bits(m))
	}
	binary.Write(h, binary.LittleEndian, math.Float64bits(noiseSD))
}

// secretKeys derives the keys of an environment of a secret seed: each an
// HMAC-SHA256 keyed by the secret over a domain tag and the environment
// (writeEnv), one for the reward streams and one for the delay streams.
// Each stream of a replication is then keyed by an HMAC of its own under
// one of them (Stream, Delays), so that even the state of one stream,
// were it recovered from its outputs, tells nothing of another.
func secretKeys(key [seed.SecretLen]byte, family sdk.Family, means []float64, noiseSD float64) (rewards, delays [sha256.Size]byte) {
	derive := func(tag string) (out [sha256.Size]byte) {
		m := hmac.New(sha256.New, key[:])
		m.Write([]byte(tag))
		writeEnv(m, family, means, noiseSD)
		m.Sum(out[:0])
		return out
	}
	return derive(tagSecretRewards), derive(tagSecretDelays)
}

// New returns the environment with the given means whose reward streams are
// keyed by the scenario seed s.
func New(family sdk.Family, means []float64, noiseSD float64, s seed.Seed) (*Env, error) {
	return NewChanging(family, means, noiseSD, s, nil)
}

// NewChanging returns the environment whose means start at means (round
// 1) and move as ch says; nil ch is New's stationary environment. The
// reward streams are keyed as New keys them, by the initial means: the
// n-th reward of arm i in replication r is drawn from the same uniform
// (bernoulli) or normal (gaussian) deviate whatever the changes, which
// only move the mean it is compared with or added to (design §4). Random
// changes are drawn from a stream of each replication's own, keyed like
// the delay stream.
func NewChanging(family sdk.Family, means []float64, noiseSD float64, s seed.Seed, ch *Changes) (*Env, error) {
	if len(means) < 2 {
		return nil, fmt.Errorf("env: need at least two arms, got %d", len(means))
	}
	if family != sdk.Gaussian && family != sdk.Bernoulli {
		return nil, fmt.Errorf("env: unknown family %q", family)
	}
	e := &Env{Family: family, Means: append([]float64(nil), means...), NoiseSD: noiseSD}
	if ch != nil {
		if err := ch.check(len(means)); err != nil {
			return nil, err
		}
		c := *ch
		c.Points = make([]Point, len(ch.Points))
		for j, p := range ch.Points {
			c.Points[j] = Point{At: p.At, Means: append([]float64(nil), p.Means...)}
		}
		e.changes = &c
	}
	if key, ok := s.Key(); ok {
		e.secret = true
		e.rewardMAC, e.delayMAC = secretKeys(key, family, e.Means, noiseSD)
		if ch != nil {
			m := hmac.New(sha256.New, key[:])
			m.Write([]byte(tagSecretChanges))
			writeEnv(m, family, e.Means, noiseSD)
			m.Sum(e.changeMAC[:0])
		}
	} else {
		n, _ := s.Uint64()
		e.key = rewardKey(n, family, e.Means, noiseSD)
	}
	for i, m := range means {
		if m > means[e.best] {
			e.best = i
		}
	}
	mb := means[e.best]
	e.mu2 = math.Inf(-1)
	e.gaps = make([]float64, len(means))
	for i, m := range means {
		e.gaps[i] = mb - m
		if m < mb && m > e.mu2 {
			e.mu2 = m
		}
	}
	return e, nil
}

// Best is the best arm: the first index among the maxima.
func (e *Env) Best() int { return e.best }

// Second is mu2, the largest mean strictly below the best one (-Inf when
// every arm ties, in which case no round counts as underestimated).
func (e *Env) Second() float64 { return e.mu2 }

// Gaps returns mu_b - mu_i per arm.
func (e *Env) Gaps() []float64 { return e.gaps }

// Stream holds the reward streams of one replication: one independent
// random stream per arm, keyed by (environment key, replication, arm). The
// n-th pull of arm i therefore gets the same reward whatever policy pulls it
// and however replications are batched or sharded.
//
// In a changing environment the means move along the replication's Path:
// Advance it once per round, in order, before the round's pulls.
type Stream struct {
	e    *Env
	arms []*rand.Rand
	path *Path
	mu   []float64 // the path's means, updated in place
}

// Stream returns the reward streams of replication rep.
func (e *Env) Stream(rep uint64) *Stream {
	s := &Stream{e: e, arms: make([]*rand.Rand, len(e.Means))}
	s.path = e.NewPath(rep)
	s.mu = s.path.means
	if e.secret {
		m := hmac.New(sha256.New, e.rewardMAC[:])
		for i := range s.arms {
			m.Reset()
			s.arms[i] = rand.New(macPCG(m, rep, uint64(i)))
		}
		return s
	}
	k := seed.Mix(e.key[0] ^ seed.Mix(rep))
	for i := range s.arms {
		s.arms[i] = rand.New(rand.NewPCG(k, seed.Mix(e.key[1]^uint64(i))))
	}
	return s
}

// macPCG seeds a PCG with the first 16 bytes of the HMAC m over the
// little-endian words xs.
func macPCG(m hash.Hash, xs ...uint64) *rand.PCG {
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], x)
		m.Write(b[:])
	}
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	return rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16]))
}

// Path is the replication's path of the true means.
func (s *Stream) Path() *Path { return s.path }

// Changing reports whether the environment's means move over the rounds.
func (e *Env) Changing() bool { return e.changes != nil }

// Pull returns the next reward of arm i, of the mean of the round the
// path is at.
func (s *Stream) Pull(i int) float64 {
	r := s.arms[i]
	if s.e.Family == sdk.Bernoulli {
		if r.Float64() < s.mu[i] {
			return 1
		}
		return 0
	}
	return s.mu[i] + s.e.NoiseSD*r.NormFloat64()
}

// delayTag separates a replication's delay stream from its reward streams.
const delayTag = 0x64656c6179732d31 // "delays-1"

// Delays returns the delay stream of replication rep (delayed feedback,
// design §4): keyed by the environment key and rep only, so every policy
// of a scenario, every batch and every shard draws the same delays. The
// engine draws from it once per round, in round order.
func (e *Env) Delays(rep uint64) *rand.Rand {
	if e.secret {
		return rand.New(macPCG(hmac.New(sha256.New, e.delayMAC[:]), rep))
	}
	k := seed.Mix(e.key[0] ^ seed.Mix(rep))
	return rand.New(rand.NewPCG(k^delayTag, seed.Mix(e.key[1]^delayTag)))
}

// GeometricDelay draws a delay, geometric on {0, 1, 2, ...} with the given
// mean, from r: one uniform draw, inverted (feedback.GeometricDelay).
func GeometricDelay(r *rand.Rand, mean float64) int {
	return feedback.GeometricDelay(1-r.Float64(), mean) // in (0, 1]
}
