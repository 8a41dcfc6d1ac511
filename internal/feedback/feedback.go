// Package feedback holds the rules of delayed feedback (design §3) that
// the SDK, the host's engine and the conformance kit share, as package
// params holds those of parameters: the feedback modes a scenario may
// declare (Feedback, which package sdk aliases as Feedback) and which
// of them a plugin can play (Check); when each reward of a session
// arrives (Schedule); and the order in which the rewards arriving at a
// round are handed to the plugin (Mailbox). A reward of round t with
// delay d arrives at the start of round t+d+1; rewards due after the
// horizon never arrive; the arrivals of a round are ordered by
// replication, then by the round they were pulled in.
//
// It imports nothing of the SDK or the host: sdk imports it.
package feedback

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/internal/wire"
)

// Kind names how rewards reach a policy (FeedbackKind).
type Kind string

// The feedback modes a scenario may declare.
const (
	// Immediate: the reward of round t arrives with round t+1 (protocol 1).
	Immediate Kind = ""
	// Delay: every reward arrives Feedback.Delay rounds late.
	Delay Kind = "delay"
	// Geometric: random delays, geometric on {0, 1, 2, ...} with mean
	// Feedback.Mean.
	Geometric Kind = "geometric"
	// Batch: the rewards of rounds ((k-1)B, kB] arrive at the start of round
	// kB+1, with B = Feedback.Batch.
	Batch Kind = "batch"
)

// Feedback is the feedback mode of a session, as the scenario declares it
// (Feedback): what the scenario declares is known to the learner. A
// reward of round t with delay d arrives at the start of round t+d+1;
// rewards due after the horizon never arrive. The zero value is immediate
// feedback.
type Feedback struct {
	Kind  Kind
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

// Check reports a feedback mode the SDK cannot play: an unknown kind, a
// negative delay, a geometric mean that is negative or not finite, a batch
// shorter than one round.
func Check(f Feedback) error {
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

// Schedule decides when each reward of a session arrives under a feedback
// mode.
type Schedule struct {
	fb   Feedback
	draw func(i, t int) int
}

// NewSchedule returns the schedule of fb. Under geometric feedback, draw(i,
// t) is the delay of the reward of round t of replication i (the position
// in the session's batch); it is called once per replication and round,
// in round order, and for geometric feedback only, so that a draw from a
// per-replication stream (see GeometricDelay) is one draw per reward.
func NewSchedule(fb Feedback, draw func(i, t int) int) *Schedule {
	return &Schedule{fb: fb, draw: draw}
}

// Due returns the round at whose start the reward of round t of
// replication i arrives: t+D+1 for a fixed delay D, t+d+1 for a geometric
// delay d, and, for batches of B rounds, kB+1 for the rounds ((k-1)B, kB].
// Under immediate feedback it is t+1.
func (s *Schedule) Due(t, i int) int {
	switch s.fb.Kind {
	case Delay:
		return t + s.fb.Delay + 1
	case Geometric:
		return t + s.draw(i, t) + 1
	case Batch:
		b := s.fb.Batch
		return (t+b-1)/b*b + 1
	}
	return t + 1
}

// maxGeometricDelay caps a drawn delay far beyond any horizon.
const maxGeometricDelay = 1 << 40

// GeometricDelay is the delay, geometric on {0, 1, 2, ...} with the given
// mean, that the uniform u in (0, 1] stands for: u inverted through the
// distribution function, capped far beyond any horizon. A mean of 0 or
// less is no delay.
func GeometricDelay(u, mean float64) int {
	if mean <= 0 {
		return 0
	}
	p := 1 / (1 + mean)
	d := math.Floor(math.Log(u) / math.Log1p(-p))
	if !(d < maxGeometricDelay) {
		return maxGeometricDelay
	}
	return int(d)
}

// pending is a reward not yet arrived.
type pending struct {
	index  int32
	arm    int32
	round  int
	reward float64
}

// Mailbox holds the pending rewards of a session by the round they arrive
// in, and hands them out ordered by replication, then round.
type Mailbox struct {
	horizon int
	due     map[int][]pending
	free    [][]pending
	count   []int // per replication, reused
	out     []wire.Arrival
}

// NewMailbox returns the mailbox of a session of n replications and the
// given horizon.
func NewMailbox(n, horizon int) *Mailbox {
	return &Mailbox{horizon: horizon, due: map[int][]pending{}, count: make([]int, n+1)}
}

// Post files the reward of round t of replication i to arrive at round at;
// rewards due after the horizon never arrive. The rewards of a round are
// posted after those of the rounds before it.
func (m *Mailbox) Post(at, i int, t int, arm int32, reward float64) {
	if at > m.horizon {
		return
	}
	b, ok := m.due[at]
	if !ok && len(m.free) > 0 {
		b, m.free = m.free[len(m.free)-1][:0], m.free[:len(m.free)-1]
	}
	m.due[at] = append(b, pending{index: int32(i), arm: arm, round: t, reward: reward})
}

// Take returns the arrivals of round t, ordered by index, then round.
// Rewards were posted in round order, so a stable counting sort by index
// does it. The result is valid until the next Take.
func (m *Mailbox) Take(t int) []wire.Arrival {
	b, ok := m.due[t]
	m.out = m.out[:0]
	if !ok {
		return m.out
	}
	delete(m.due, t)
	clear(m.count)
	for _, p := range b {
		m.count[p.index+1]++
	}
	for i := 1; i < len(m.count); i++ {
		m.count[i] += m.count[i-1]
	}
	if cap(m.out) < len(b) {
		m.out = make([]wire.Arrival, len(b), 2*len(b))
	}
	m.out = m.out[:len(b)]
	for _, p := range b {
		j := m.count[p.index]
		m.count[p.index]++
		m.out[j] = wire.Arrival{Index: int(p.index), Round: p.round, Arm: p.arm, Reward: p.reward}
	}
	m.free = append(m.free, b)
	return m.out
}
