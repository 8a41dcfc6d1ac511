package sdk

import "github.com/regretbench/regretbench/internal/feedback"

// FeedbackKind names how rewards reach a policy (design §3).
type FeedbackKind = feedback.Kind

// The feedback modes a scenario may declare.
const (
	// Immediate: the reward of round t arrives with round t+1 (protocol 1).
	Immediate = feedback.Immediate
	// Delay: every reward arrives Feedback.Delay rounds late.
	Delay = feedback.Delay
	// Geometric: random delays, geometric on {0, 1, 2, ...} with mean
	// Feedback.Mean.
	Geometric = feedback.Geometric
	// Batch: the rewards of rounds ((k-1)B, kB] arrive at the start of round
	// kB+1, with B = Feedback.Batch.
	Batch = feedback.Batch
)

// Feedback is the feedback mode of a session, as the scenario declares it:
// what the scenario declares is known to the learner. A reward of round t
// with delay d arrives at the start of round t+d+1; rewards due after the
// horizon never arrive. The zero value is immediate feedback.
//
// Its methods: Delayed() bool reports whether rewards come as arrivals
// (any declared mode, {delay: 0} included) rather than immediately;
// String() renders the mode as the scenario key would: "immediate",
// "delay 10", "geometric mean 10", "batch 100".
type Feedback = feedback.Feedback

// Arrival is one reward arriving late, under delayed feedback: the
// replication's position in the batch, the round the arm was pulled in, the
// arm and the reward.
type Arrival struct {
	Index  int // position of the replication in the session's batch (BatchStep slices)
	Round  int // the round (1-based) the arm was pulled in, before the current round
	Arm    int32
	Reward float64
}
