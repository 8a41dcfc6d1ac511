package exp3

import (
	"math/rand/v2"
	"testing"
)

// TestPendingMatchesMap drives the ring with random delays (out of order,
// the last rewards never arriving, undrawn rounds) and checks every take
// against a map of the rounds put and not yet taken, and that the ring
// stays about as long as the longest delay, not the number of rounds.
func TestPendingMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		var q pending
		want := map[int]float64{}
		due := map[int][]int{}
		maxDelay := []int{0, 1, 5, 50, 300}[trial%5]
		rounds := 1 + rng.IntN(1000)
		for r := 1; r <= rounds; r++ {
			for _, s := range due[r] {
				got, ok := q.take(s)
				w, wok := want[s]
				if ok != wok || got != w {
					t.Fatalf("trial %d: take(%d) = %v, %v; want %v, %v", trial, s, got, ok, w, wok)
				}
				delete(want, s)
				if _, ok := q.take(s); ok {
					t.Fatalf("trial %d: round %d taken twice", trial, s)
				}
			}
			if rng.IntN(10) == 0 {
				// A round not drawn (forced): its reward arrives all the same.
				due[r+1] = append(due[r+1], r)
				continue
			}
			prob := 0.01 + rng.Float64()
			q.put(r, prob)
			want[r] = prob
			// Rewards due after the last round never arrive.
			d := rng.IntN(maxDelay + 1)
			due[r+d+1] = append(due[r+d+1], r)
		}
		if len(q.p) > 2*(maxDelay+1) {
			t.Errorf("trial %d: a ring of %d rounds for delays of at most %d", trial, len(q.p), maxDelay)
		}
	}
}
