package engine

import (
	"math/rand/v2"

	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// schedule decides when each reward of a session arrives under delayed
// feedback (design §3): a reward of round t with delay d arrives at the
// start of round t+d+1.
type schedule struct {
	fb     sdk.Feedback
	delays []*rand.Rand // per replication, geometric delays only
}

func newSchedule(fb sdk.Feedback, e *env.Env, reps []uint64) *schedule {
	s := &schedule{fb: fb}
	if fb.Kind == sdk.Geometric {
		s.delays = make([]*rand.Rand, len(reps))
		for i, r := range reps {
			s.delays[i] = e.Delays(r)
		}
	}
	return s
}

// due returns the round at whose start the reward of round t of
// replication i arrives. It is called once per replication and round, in
// round order: a geometric delay is one draw from the replication's stream.
func (s *schedule) due(t, i int) int {
	switch s.fb.Kind {
	case sdk.Delay:
		return t + s.fb.Delay + 1
	case sdk.Geometric:
		return t + env.GeometricDelay(s.delays[i], s.fb.Mean) + 1
	case sdk.Batch:
		b := s.fb.Batch
		return (t+b-1)/b*b + 1
	}
	return t + 1
}

// pending is a reward not yet arrived.
type pending struct {
	index  int32
	arm    int32
	round  int
	reward float64
}

// mailbox holds the pending rewards of a session by the round they arrive
// in, and hands them out ordered by replication, then round.
type mailbox struct {
	horizon int
	due     map[int][]pending
	free    [][]pending
	count   []int // per replication, reused
	out     []client.Arrival
}

func newMailbox(n, horizon int) *mailbox {
	return &mailbox{horizon: horizon, due: map[int][]pending{}, count: make([]int, n+1)}
}

// post files the reward of round t of replication i to arrive at round at;
// rewards due after the horizon never arrive.
func (m *mailbox) post(at, i int, t int, arm int32, reward float64) {
	if at > m.horizon {
		return
	}
	b, ok := m.due[at]
	if !ok && len(m.free) > 0 {
		b, m.free = m.free[len(m.free)-1][:0], m.free[:len(m.free)-1]
	}
	m.due[at] = append(b, pending{index: int32(i), arm: arm, round: t, reward: reward})
}

// take returns the arrivals of round t, ordered by index, then round. Rewards
// were posted in round order, so a stable counting sort by index does it.
// The result is valid until the next take.
func (m *mailbox) take(t int) []client.Arrival {
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
		m.out = make([]client.Arrival, len(b), 2*len(b))
	}
	m.out = m.out[:len(b)]
	for _, p := range b {
		j := m.count[p.index]
		m.count[p.index]++
		m.out[j] = client.Arrival{Index: int(p.index), Round: p.round, Arm: p.arm, Reward: p.reward}
	}
	m.free = append(m.free, b)
	return m.out
}
