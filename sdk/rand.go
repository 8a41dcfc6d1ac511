package sdk

import "math/rand/v2"

// SaltPolicy keys the policies' own randomness, apart from any other use a
// plugin makes of its session seed.
const SaltPolicy uint64 = 0x706f6c6963790001

// Mix is the SplitMix64 finaliser: a bijective mix of x used to derive
// independent stream keys from small integers.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ReplicaRand returns the random source of replication index under seed,
// the session's policy seed (Session.Seed). It depends only on (seed,
// index), so a policy's randomness does not change with the batch split,
// the worker count or sharding (design §4).
func ReplicaRand(seed, index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(Mix(seed^SaltPolicy), Mix(index)))
}
