package sdk

import (
	"fmt"
	"math"
)

// FeedbackKind names how rewards reach a policy (design §3).
type FeedbackKind string

// The feedback modes a scenario may declare.
const (
	// Immediate: the reward of round t arrives with round t+1 (protocol 1).
	Immediate FeedbackKind = ""
	// Delay: every reward arrives Feedback.Delay rounds late.
	Delay FeedbackKind = "delay"
	// Geometric: random delays, geometric on {0, 1, 2, ...} with mean
	// Feedback.Mean.
	Geometric FeedbackKind = "geometric"
	// Batch: the rewards of rounds ((k-1)B, kB] arrive at the start of round
	// kB+1, with B = Feedback.Batch.
	Batch FeedbackKind = "batch"
)

// Feedback is the feedback mode of a session, as the scenario declares it:
// what the scenario declares is known to the learner. A reward of round t
// with delay d arrives at the start of round t+d+1; rewards due after the
// horizon never arrive. The zero value is immediate feedback.
type Feedback struct {
	Kind  FeedbackKind
	Delay int     // Delay: the delay D >= 0 of every reward
	Mean  float64 // Geometric: the mean delay
	Batch int     // Batch: the batch length B >= 1
}

// Delayed reports whether rewards come as arrivals (any declared feedback
// mode, {delay: 0} included) rather than immediately.
func (f Feedback) Delayed() bool { return f.Kind != Immediate }

// String renders the mode as the scenario key would: "immediate",
// "delay 10", "geometric mean 10", "batch 100".
func (f Feedback) String() string {
	switch f.Kind {
	case Immediate:
		return "immediate"
	case Delay:
		return fmt.Sprintf("delay %d", f.Delay)
	case Geometric:
		return fmt.Sprintf("geometric mean %v", f.Mean)
	case Batch:
		return fmt.Sprintf("batch %d", f.Batch)
	}
	return fmt.Sprintf("unknown feedback %q", string(f.Kind))
}

// Arrival is one reward arriving late, under delayed feedback: the
// replication's position in the batch, the round the arm was pulled in, the
// arm and the reward.
type Arrival struct {
	Index  int // position of the replication in the session's batch (BatchStep slices)
	Round  int // the round (1-based) the arm was pulled in, before the current round
	Arm    int32
	Reward float64
}

// check reports a feedback mode the SDK cannot play.
func (f Feedback) check() error {
	switch f.Kind {
	case Immediate:
		return nil
	case Delay:
		if f.Delay < 0 {
			return fmt.Errorf("feedback delay %d, want >= 0", f.Delay)
		}
		return nil
	case Geometric:
		if !(f.Mean >= 0) || math.IsInf(f.Mean, 0) {
			return fmt.Errorf("feedback geometric mean %v, want a finite value >= 0", f.Mean)
		}
		return nil
	case Batch:
		if f.Batch < 1 {
			return fmt.Errorf("feedback batch %d, want >= 1", f.Batch)
		}
		return nil
	}
	return fmt.Errorf("unknown feedback kind %q (want delay, geometric or batch)", string(f.Kind))
}
