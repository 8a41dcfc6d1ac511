package env

import (
	"math"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// secretOf returns the secret seed whose 32 bytes are b, b+1, ..., b+31.
func secretOf(b byte) seed.Seed {
	var k [seed.SecretLen]byte
	for i := range k {
		k[i] = b + byte(i)
	}
	return seed.FromKey(k)
}

// draws is what an environment derives from its seed, as far as anyone
// outside the host could observe: the policy seed, the first rewards of
// each arm in two replications and the first delays.
type draws struct {
	policy  uint64
	rewards []float64
	delays  []int
}

func drawsOf(t *testing.T, s seed.Seed, means []float64) draws {
	t.Helper()
	e, err := New(sdk.Gaussian, means, 0.5, s)
	if err != nil {
		t.Fatal(err)
	}
	d := draws{policy: PolicySeed(s)}
	for _, rep := range []uint64{0, 7} {
		st := e.Stream(rep)
		for arm := range means {
			for range 4 {
				d.rewards = append(d.rewards, st.Pull(arm))
			}
		}
		r := e.Delays(rep)
		for range 8 {
			d.delays = append(d.delays, GeometricDelay(r, 10))
		}
	}
	return d
}

// TestSecretSeedKeysEverything: under a secret seed the policy seed, the
// rewards and the delays are a function of the secret (and, for rewards
// and delays, of the environment): the same secret gives the same ones,
// and a secret one bit away, an integer seed, or another mean gives other
// ones throughout.
func TestSecretSeedKeysEverything(t *testing.T) {
	means := []float64{0.6, 0.5, 0.45}
	a := secretOf(1)
	k, _ := a.Key()
	k[31] ^= 1
	oneBit := seed.FromKey(k)
	want := drawsOf(t, a, means)
	if got := drawsOf(t, a, means); got.policy != want.policy || !slices.Equal(got.rewards, want.rewards) || !slices.Equal(got.delays, want.delays) {
		t.Fatal("the same secret gives different draws")
	}
	for _, c := range []struct {
		name   string
		s      seed.Seed
		means  []float64
		policy bool // whether the policy seed must differ too (it does not depend on the means)
	}{
		{"a secret one bit away", oneBit, means, true},
		{"another secret", secretOf(100), means, true},
		{"the integer seed 1", seed.Int(1), means, true},
		{"the integer seed 0", seed.Int(0), means, true},
		{"another mean", a, []float64{0.6, 0.5, 0.44}, false},
	} {
		got := drawsOf(t, c.s, c.means)
		if c.policy && got.policy == want.policy {
			t.Errorf("%s: same policy seed %#x", c.name, got.policy)
		}
		if !c.policy && got.policy != want.policy {
			t.Errorf("%s: the policy seed moved (%#x, was %#x); it depends on the seed alone", c.name, got.policy, want.policy)
		}
		for i := range got.rewards {
			// Compare the noise: the means may differ.
			arm := (i / 4) % len(means)
			if (got.rewards[i] - c.means[arm]) == (want.rewards[i] - means[arm]) {
				t.Errorf("%s: reward draw %d has the same noise", c.name, i)
			}
		}
		if slices.Equal(got.delays, want.delays) {
			t.Errorf("%s: the same delays %v", c.name, got.delays)
		}
	}
	// Within one secret, replications and arms have streams of their own.
	if slices.Equal(want.rewards[:12], want.rewards[12:]) {
		t.Error("replications 0 and 7 draw the same rewards")
	}
	if slices.Equal(want.delays[:8], want.delays[8:]) {
		t.Error("replications 0 and 7 draw the same delays")
	}
}

// TestSecretPolicySeedIsNoPlainHash: the policy seed of a secret seed is
// not what any integer seed gives (the plain hash a plugin can compute),
// so a plugin cannot tell the secret apart from nothing by hashing
// integers; TestSealedPolicySeed in host/e2e searches a million of them
// through a real plugin.
func TestSecretPolicySeedIsNoPlainHash(t *testing.T) {
	plain := map[uint64]uint64{}
	for n := range uint64(10_000) {
		plain[PolicySeed(seed.Int(n))] = n
	}
	for b := range 50 {
		s := secretOf(byte(b))
		if n, ok := plain[PolicySeed(s)]; ok {
			t.Errorf("the policy seed of secret %s is the integer seed %d's", s.Abbrev(), n)
		}
	}
}

// TestSecretRewardMoments: rewards under a secret seed still have the
// declared mean and sd (gaussian) and rate (bernoulli), 5 standard errors.
func TestSecretRewardMoments(t *testing.T) {
	const n = 100_000
	g, _ := New(sdk.Gaussian, []float64{0.3, -1}, 2, secretOf(3))
	s := g.Stream(0)
	var sum, ss float64
	for range n {
		x := s.Pull(1)
		sum += x
		ss += x * x
	}
	mean := sum / n
	sd := math.Sqrt(ss/n - mean*mean)
	if math.Abs(mean+1) > 5*2/math.Sqrt(n) || math.Abs(sd-2) > 5*2/math.Sqrt(2*n) {
		t.Errorf("gaussian: mean %v sd %v, want -1 and 2", mean, sd)
	}
	b, _ := New(sdk.Bernoulli, []float64{0.1, 0.7}, 0, secretOf(4))
	s = b.Stream(0)
	sum = 0
	for range n {
		sum += s.Pull(1)
	}
	if p := sum / n; math.Abs(p-0.7) > 5*math.Sqrt(0.21/n) {
		t.Errorf("bernoulli: rate %v, want 0.7", p)
	}
}

// TestSecretDerivationPinned: the keyed derivations are fixed; changing
// one changes every sealed run's results, which needs a new
// SecretStreamsVersion. Integer seeds record StreamsVersion, secret ones
// SecretStreamsVersion.
func TestSecretDerivationPinned(t *testing.T) {
	s := secretOf(0)
	if got, want := PolicySeed(s), uint64(pinnedPolicy); got != want {
		t.Errorf("PolicySeed(0x0001..1f) = %#x, want %#x: a changed derivation needs a new SecretStreamsVersion", got, want)
	}
	e, _ := New(sdk.Gaussian, []float64{1, 0}, 1, s)
	if got := e.Stream(5).Pull(1); got != pinnedReward {
		t.Errorf("reward 0 of arm 1 in replication 5 = %v, want %v: a changed derivation needs a new SecretStreamsVersion", got, pinnedReward)
	}
	if got := e.Delays(5).Uint64(); got != pinnedDelay {
		t.Errorf("delay draw 0 of replication 5 = %#x, want %#x: a changed derivation needs a new SecretStreamsVersion", got, uint64(pinnedDelay))
	}
	if Streams(s) != SecretStreamsVersion || Streams(seed.Int(1)) != StreamsVersion || SecretStreamsVersion == StreamsVersion {
		t.Errorf("Streams: secret %q, integer %q", Streams(s), Streams(seed.Int(1)))
	}
}

// The values the keyed derivations gave when they were written.
const (
	pinnedPolicy = 0xa4d38ae82fd1a927 // as Python's hmac computes it from the documented tag
	pinnedReward = 1.0623279924465039
	pinnedDelay  = 0x8305096ec9c938c7
)
