package sdk

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/internal/wire"
)

// Family names the reward distribution of a scenario's arms.
type Family = wire.Family

// The reward families a scenario may declare.
const (
	// Gaussian rewards: N(mu_i, sd^2) with sd known to the learner when
	// Session.NoiseKnown is true.
	Gaussian = wire.Gaussian
	// Bernoulli rewards in {0, 1} with success probability mu_i.
	Bernoulli = wire.Bernoulli
)

// Session holds everything a policy is allowed to know about the problem it
// faces (design §3): never the true means, never the best arm.
type Session struct {
	Arms       int     // number of arms K; arms are numbered 0..K-1
	Horizon    int     // number of rounds T
	Family     Family  // reward family
	NoiseSD    float64 // reward noise sd (gaussian), meaningful when NoiseKnown
	NoiseKnown bool    // whether the scenario declares NoiseSD known
	InitPulls  int     // rounds 1..K*InitPulls are forced by the host: arm (t-1) mod K
	Seed       uint64  // the policy seed: a one-way function of the scenario seed, never the seed itself
	Params     Params  // the policy's parameters, defaults filled in
	// Feedback is how rewards arrive, as the scenario declares it (the zero
	// value, immediate, unless it declares `feedback:`).
	Feedback Feedback
	// Context is the shape of each round's context in a contextual
	// session (protocol 3); the zero value in a context-free one.
	Context ContextShape
}

// ContextShape is the shape of a contextual session's contexts: each
// round, each replication sees Dim features shared by every arm or, with
// PerArm, Dim features for each arm, arm by arm (arm a's at
// x[a*Dim:(a+1)*Dim]). The zero value is a context-free session.
type ContextShape = wire.ContextShape

// InitRounds is the number of host-forced rounds at the start of a run.
func (s Session) InitRounds() int { return s.Arms * s.InitPulls }

// Replica identifies one replication of a session.
type Replica struct {
	Index uint64     // global replication index r (0-based), the same for every batch split
	Rand  *rand.Rand // the policy's own randomness, seeded from (Seed, Index) only
}

// Policy is the per-replication interface a plugin author implements. The
// SDK creates one Policy per replication and drives them in parallel across
// cores; a Policy needs no locking.
//
// For every round t = 1..T the SDK first calls Select(t), unless t is one of
// the host-forced initial rounds, and then, once the host sends it with the
// next round, Observe with the arm actually pulled in round t and its
// reward. The reward of the last round T is never sent: no decision depends
// on it, so Observe(T, ...) is not called.
//
// Under delayed or batched feedback (Session.Feedback.Delayed()) Observe(t,
// arm, reward) is called when the reward of round t arrives, before Select
// of the current round, in the order of the pulled rounds; rewards due
// after the horizon never arrive. Forced rounds' rewards arrive the same
// way. With {delay: 0} the calls are exactly those of immediate feedback.
type Policy interface {
	// Select returns the arm (0..K-1) to pull in round t (1-based).
	Select(t int) int
	// Observe reports the reward of the arm pulled in round t.
	Observe(t, arm int, reward float64)
}

// Factory builds the Policy of one replication.
type Factory func(s Session, r Replica) (Policy, error)

// ContextualPolicy is the per-replication interface of a contextual policy
// (docs/contextual.md). The SDK creates one per replication of a
// contextual session and drives them in parallel across cores.
//
// For every round t = 1..T the SDK calls Select(t, x) with round t's
// context, unless t is a host-forced initial round, and then, once the
// host sends the reward with the next round, Observe with the same
// context, the arm actually pulled and its reward. As for Policy, the
// reward of round T is never sent. x holds Session.Context.Width(K)
// values and belongs to the SDK: a policy copies what it keeps.
type ContextualPolicy interface {
	// Select returns the arm (0..K-1) to pull in round t given its
	// context x, and the probability the policy gave that arm: in (0, 1],
	// or 0 when the policy does not say (a deterministic policy says 1).
	Select(t int, x []float64) (arm int, prob float64)
	// Observe reports the reward of the arm pulled in round t, whose
	// context was x.
	Observe(t int, x []float64, arm int, reward float64)
}

// ContextualFactory builds the ContextualPolicy of one replication.
type ContextualFactory func(s Session, r Replica) (ContextualPolicy, error)

// Diagnoser is an optional interface of a Policy: it fills out, aligned
// with Plugin.Diagnostics, the diagnostics of the decision made by the last
// Select call. The host asks for them only at its checkpoints.
type Diagnoser interface {
	Diagnose(out []float64)
}

// BatchStep is one round of all replications of a batch session.
type BatchStep struct {
	// Round is the round t (1-based) whose arms are requested.
	Round int
	// PrevArms and PrevRewards are the arm pulled and reward observed in round
	// t-1 for every replication of the batch; both are empty when t == 1.
	// Under delayed feedback PrevArms is still the arm pulled in round t-1
	// (forced or not) but PrevRewards is empty: rewards come in Arrivals.
	PrevArms    []int32
	PrevRewards []float64
	// Arrivals, under delayed feedback only, are the rewards arriving at the
	// start of round t, ordered by Index, then Round (both ascending).
	Arrivals []Arrival
	// Arms receives the arm for round t of every replication. During the
	// host-forced initial rounds the SDK fills it itself and ignores changes.
	Arms []int32
	// Diagnostics, when non-nil, receives Diagnostics[d][i]: diagnostic d
	// (aligned with Plugin.Diagnostics) of replication i for this round.
	Diagnostics [][]float64
	// In a contextual session (Session.Context set; Plugin.NewContextualBatch):
	// Contexts holds round t's context of every replication, w =
	// Session.Context.Width(K) values each (replication i's at
	// Contexts[i*w:(i+1)*w]); PrevContexts round t-1's, empty when t == 1;
	// and Probs receives the probability the policy gave each chosen arm,
	// in (0, 1], or 0 where it does not say (the SDK zeroes it each
	// round). All three are nil in a context-free session.
	Contexts     []float64
	PrevContexts []float64
	Probs        []float64
}

// BatchPolicy is the optional interface for authors who vectorise across
// replications. The SDK calls Step once per round, in round order.
type BatchPolicy interface {
	Step(s *BatchStep) error
}

// Closer is an optional interface of a BatchPolicy: the SDK calls Close
// once, when the host closes the session, for the policy to release what it
// holds (files, threads). An error fails the policy. The host waits for it
// no longer than its step timeout, and only a few seconds once interrupted.
type Closer interface {
	Close() error
}

// BatchFactory builds the BatchPolicy for a batch of replications. replicas
// lists each replication's global index and its own random source, in the
// order of the BatchStep slices.
type BatchFactory func(s Session, replicas []Replica) (BatchPolicy, error)

// RewardSD returns the reward standard deviation a policy with a Gaussian
// posterior may use: for the gaussian family the declared NoiseSD, which
// must be known to the learner, positive and finite; for bernoulli 0.5, the
// largest standard deviation of a {0, 1} reward. Policies call it instead of
// checking NoiseKnown themselves, so none can use an undeclared sd.
func (s Session) RewardSD() (float64, error) {
	switch s.Family {
	case Gaussian:
		if !s.NoiseKnown {
			return 0, fmt.Errorf("gaussian rewards need a known noise sd (the scenario declares noise_known: false)")
		}
		if !(s.NoiseSD > 0) || math.IsInf(s.NoiseSD, 0) {
			return 0, fmt.Errorf("gaussian noise sd %v: want a finite value > 0", s.NoiseSD)
		}
		return s.NoiseSD, nil
	case Bernoulli:
		return 0.5, nil
	}
	return 0, fmt.Errorf("unsupported reward family %q", s.Family)
}
