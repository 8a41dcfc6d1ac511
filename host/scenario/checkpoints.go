package scenario

import (
	"math/big"
	"slices"
)

// DefaultCheckpointCount is the number of rounds DefaultCheckpoints returns
// for a horizon of at least that many rounds.
const DefaultCheckpointCount = 30

// DefaultCheckpoints returns DefaultCheckpointCount log-spaced rounds in
// [1, T], strictly increasing and ending at T (every round 1..T when T is
// smaller); nil when T < 1.
//
// Round i (0-based) is floor(T^(i/29)), raised to one more than its
// predecessor when the two would collide. It is computed in exact integer
// arithmetic, so every machine gets the same checkpoints: results sharded
// across machines must agree on them to merge.
func DefaultCheckpoints(T int) []int {
	if T < 1 {
		return nil
	}
	n := DefaultCheckpointCount
	if T <= n {
		out := make([]int, T)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	out := make([]int, 0, n)
	bigT := big.NewInt(int64(T))
	prev := 0
	for i := range n - 1 {
		c := max(intRoot(bigT, i, n-1), prev+1)
		out = append(out, c)
		prev = c
	}
	return append(out, T)
}

// intRoot returns floor(T^(i/k)) for T >= 1 and 0 <= i <= k: the largest c
// with c^k <= T^i.
func intRoot(T *big.Int, i, k int) int {
	target := new(big.Int).Exp(T, big.NewInt(int64(i)), nil)
	lo, hi := int64(1), T.Int64() // c^k <= T^i holds for lo and fails above hi
	var p big.Int
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		p.Exp(big.NewInt(mid), big.NewInt(int64(k)), nil)
		if p.Cmp(target) <= 0 {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return int(lo)
}

// AddCheckpoints adds the rounds of at that lie in 1..Horizon to
// s.Checkpoints, which stay sorted without repeats: asking for a round
// records the metrics there rather than failing because it was not a
// checkpoint. Rounds outside the horizon are left out; the caller refuses
// them (report.CheckAt).
func (s *Scenario) AddCheckpoints(at ...int) {
	for _, t := range at {
		if t >= 1 && t <= s.Horizon && !slices.Contains(s.Checkpoints, t) {
			s.Checkpoints = append(s.Checkpoints, t)
		}
	}
	slices.Sort(s.Checkpoints)
}

// BreakpointCheckpoints returns the default checkpoints of a horizon T
// (DefaultCheckpoints) with each breakpoint of changes that lies in 1..T
// and the round after it (at and at+1, when within T) added: so that the
// tables show the regret as a change comes (at, the first round of the
// new means) and just after it, not only at log-spaced rounds that miss
// it. The result is sorted, without repeats, and ends at T.
func BreakpointCheckpoints(T int, changes []Change) []int {
	out := DefaultCheckpoints(T)
	for _, c := range changes {
		for _, t := range []int{c.At, c.At + 1} {
			if t >= 1 && t <= T && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// defaultCheckpointsOf returns the checkpoints of horizon T when the file
// gives none: BreakpointCheckpoints of its changes.
func (s *Scenario) defaultCheckpointsOf(T int) []int {
	return BreakpointCheckpoints(T, s.Environment.Changes)
}
