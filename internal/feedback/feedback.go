// Package feedback is the delayed-feedback arrival rule (design §3), as
// the host's engine and the conformance kit (sdk/sdktest) both play it:
// when each reward of a session arrives (Schedule), and the order in which
// the rewards arriving at a round are handed to the plugin (Mailbox). A
// reward of round t with delay d arrives at the start of round t+d+1;
// rewards due after the horizon never arrive; the arrivals of a round are
// ordered by replication, then by the round they were pulled in.
package feedback

import (
	"math"

	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

// Schedule decides when each reward of a session arrives under a feedback
// mode.
type Schedule struct {
	fb   sdk.Feedback
	draw func(i, t int) int
}

// NewSchedule returns the schedule of fb. Under geometric feedback, draw(i,
// t) is the delay of the reward of round t of replication i (the position
// in the session's batch); it is called once per replication and round,
// in round order, and for geometric feedback only, so that a draw from a
// per-replication stream (see GeometricDelay) is one draw per reward.
func NewSchedule(fb sdk.Feedback, draw func(i, t int) int) *Schedule {
	return &Schedule{fb: fb, draw: draw}
}

// Due returns the round at whose start the reward of round t of
// replication i arrives: t+D+1 for a fixed delay D, t+d+1 for a geometric
// delay d, and, for batches of B rounds, kB+1 for the rounds ((k-1)B, kB].
// Under immediate feedback it is t+1.
func (s *Schedule) Due(t, i int) int {
	switch s.fb.Kind {
	case sdk.Delay:
		return t + s.fb.Delay + 1
	case sdk.Geometric:
		return t + s.draw(i, t) + 1
	case sdk.Batch:
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
