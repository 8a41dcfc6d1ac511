package sdk

import (
	"math/rand/v2"

	"github.com/regretbench/regretbench/internal/seed"
)

// ReplicaRand returns the random source of replication index under seed,
// the session's policy seed (Session.Seed). It depends only on (seed,
// index), so a policy's randomness does not change with the batch split,
// the worker count or sharding (docs/design.md, determinism).
func ReplicaRand(s, index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed.Mix(s^seed.SaltPolicy), seed.Mix(index)))
}
