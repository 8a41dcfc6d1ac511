// Package armstat keeps the per-arm running reward statistics that the
// index policies share: for every arm the reward sum, the pull count and
// the empirical mean.
//
// The arithmetic is fixed so that policies built on it stay bit-for-bit
// reproducible: Observe adds the reward to the sum, adds one to the count
// and sets the mean to sum / count, in that order. Observe and
// FirstUnpulled do not allocate.
package armstat

// Stats is the running reward statistics of K arms. The slices all have
// length K and are read directly by a policy's hot loop; only Observe may
// change them (tests may set them to build a state).
type Stats struct {
	Sum  []float64 // running reward sum per arm
	N    []float64 // pull count per arm, a whole number held as float64
	Mean []float64 // Sum/N, refreshed by Observe; 0 until the arm is pulled

	unpulled int // arms with N == 0
}

// New returns the statistics of k arms, none pulled yet. Each extra
// pointer receives one more zeroed column of length (and capacity) k, for a
// policy's own per-arm state; all columns share one allocation, laid out
// as Sum, N, Mean, then the extras in order.
func New(k int, extra ...*[]float64) Stats {
	cols := 3 + len(extra)
	buf := make([]float64, cols*k)
	col := func(j int) []float64 { return buf[j*k : (j+1)*k : (j+1)*k] }
	for j, e := range extra {
		*e = col(3 + j)
	}
	return Stats{Sum: col(0), N: col(1), Mean: col(2), unpulled: k}
}

// Observe adds reward to arm's sum and one to its count, and refreshes its
// mean as Sum[arm] / N[arm].
func (s *Stats) Observe(arm int, reward float64) {
	if s.N[arm] == 0 {
		s.unpulled--
	}
	s.Sum[arm] += reward
	s.N[arm]++
	s.Mean[arm] = s.Sum[arm] / s.N[arm]
}

// Unpulled returns the number of arms never observed.
func (s *Stats) Unpulled() int { return s.unpulled }

// FirstUnpulled returns the lowest-indexed arm never observed and true, or
// 0 and false when every arm has been observed. The all-pulled case costs
// one comparison.
func (s *Stats) FirstUnpulled() (int, bool) {
	if s.unpulled == 0 {
		return 0, false
	}
	return s.firstUnpulled(), true
}

func (s *Stats) firstUnpulled() int {
	for i, c := range s.N {
		if c == 0 {
			return i
		}
	}
	return 0 // unreachable while unpulled > 0
}

// ArgmaxBonus returns argmax_i Mean_i + width_i*s, the lowest index on
// ties: the choice of an index policy whose bonus factors into a per-arm
// width, refreshed when the arm is observed, times a round's s (UCB1's
// and Gaussian KL-UCB's sqrt(log t)). Every arm must have been observed.
// The sum is computed as Mean[i] + width[i]*s, the same for every caller,
// so that their choices stay bit for bit what they were.
func (s *Stats) ArgmaxBonus(width []float64, scale float64) int {
	mean := s.Mean
	width = width[:len(mean)]
	best, bestV := 0, mean[0]+width[0]*scale
	for i := 1; i < len(mean); i++ {
		if v := mean[i] + width[i]*scale; v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Argmax returns the index of the largest of u, the lowest on ties (NaNs
// never win). u must not be empty.
func Argmax(u []float64) int {
	best, bestV := 0, u[0]
	for i := 1; i < len(u); i++ {
		if u[i] > bestV {
			best, bestV = i, u[i]
		}
	}
	return best
}
