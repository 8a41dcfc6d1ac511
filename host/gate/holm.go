package gate

import (
	"math"
	"sort"
)

// Holm returns Holm's step-down adjusted p-values of p, in p's order. The
// family is every non-NaN entry; NaN entries (comparisons that could not be
// tested) stay NaN and do not count towards its size. Rejecting the
// hypotheses whose adjusted p-value is below alpha controls the
// family-wise error rate at alpha under any dependence between the tests
// (Holm 1979).
func Holm(p []float64) []float64 {
	adj := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		adj[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	running := 0.0
	for k, i := range idx {
		// The k-th smallest (0-based) is compared with alpha/(m-k); the
		// running maximum keeps the adjusted values monotone, so that a
		// hypothesis is never rejected while a smaller p-value is not.
		running = math.Max(running, math.Min(1, float64(m-k)*p[i]))
		adj[i] = running
	}
	return adj
}
