// Package seed holds the key derivations that the host and the SDK share,
// part of the determinism contract (docs/design.md): the SplitMix64
// finaliser and the salt that keys the policies' own randomness. It also
// defines Seed, a scenario seed: a public integer or a 256-bit secret
// (design §4, sealed runs), whose keyed derivations live in host/env.
//
// It imports nothing of the host: the SDK, and so every Go plugin, links it.
package seed

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
