package simtest

import (
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// This file builds the sessions and policies the policy packages' tests
// use, which each package had written out again (gaussSession,
// bernSession, mustNew, newPolicy).

// Sessions1 returns the session makers of a policy with one parameter,
// named name, of type A: gauss(k, sd, a) is Gaussian(k, sd, {name: a}) and
// bern(k, a) is Bernoulli(k, {name: a}). A package binds them once:
//
//	var gaussSession, bernSession = simtest.Sessions1[float64]("c")
func Sessions1[A any](name string) (gauss func(k int, sd float64, a A) sdk.Session, bern func(k int, a A) sdk.Session) {
	gauss = func(k int, sd float64, a A) sdk.Session { return Gaussian(k, sd, sdk.Params{name: a}) }
	bern = func(k int, a A) sdk.Session { return Bernoulli(k, sdk.Params{name: a}) }
	return gauss, bern
}

// Sessions2 is Sessions1 for a policy with two parameters, named n1 and n2,
// of types A and B.
func Sessions2[A, B any](n1, n2 string) (gauss func(k int, sd float64, a A, b B) sdk.Session, bern func(k int, a A, b B) sdk.Session) {
	gauss = func(k int, sd float64, a A, b B) sdk.Session { return Gaussian(k, sd, sdk.Params{n1: a, n2: b}) }
	bern = func(k int, a A, b B) sdk.Session { return Bernoulli(k, sdk.Params{n1: a, n2: b}) }
	return gauss, bern
}

// Replica is the replica of index seed whose random source is PCG(seed,
// stream): a package picks its own stream, so that its policies' draws do
// not follow the rewards' (Simulate's stream).
func Replica(seed, stream uint64) sdk.Replica {
	return sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, stream))}
}

// MustNew builds the policy of s and r with f and returns it as P (the
// package's own policy type, for a test that inspects its state); it fails
// tb if f refuses or returns another type.
func MustNew[P sdk.Policy](tb testing.TB, f sdk.Factory, s sdk.Session, r sdk.Replica) P {
	tb.Helper()
	p, err := f(s, r)
	if err != nil {
		tb.Fatal(err)
	}
	q, ok := p.(P)
	if !ok {
		var want P
		tb.Fatalf("the factory returned a %T, want a %T", p, want)
	}
	return q
}

// MustNewFunc is MustNew bound to f, for a policy that uses no randomness:
// it builds with a Replica without Rand, so a policy that draws fails the
// test (a nil source panics).
func MustNewFunc[P sdk.Policy](f sdk.Factory) func(tb testing.TB, s sdk.Session) P {
	return func(tb testing.TB, s sdk.Session) P {
		tb.Helper()
		return MustNew[P](tb, f, s, sdk.Replica{})
	}
}

// Deterministic is the NewPolicy of a factory whose policies use no
// randomness: MustNewFunc's, ignoring the seed.
func Deterministic(f sdk.Factory) NewPolicy {
	build := MustNewFunc[sdk.Policy](f)
	return func(tb testing.TB, s sdk.Session, _ uint64) sdk.Policy {
		tb.Helper()
		return build(tb, s)
	}
}

// Seeded is the NewPolicy of a randomized policy: replication seed gets
// Replica(seed, stream).
func Seeded(f sdk.Factory, stream uint64) NewPolicy {
	return func(tb testing.TB, s sdk.Session, seed uint64) sdk.Policy {
		tb.Helper()
		return MustNew[sdk.Policy](tb, f, s, Replica(seed, stream))
	}
}
