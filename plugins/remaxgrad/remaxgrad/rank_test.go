package remaxgrad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRanked: sorting by counted ranks gives exactly insertion sort's
// keys and arms, including with ties, signed zeros, infinities and NaNs
// (which take the fallback), for every K it serves.
func TestSortRanked(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	gens := map[string]func() float64{
		"normal":   rng.NormFloat64,
		"ties":     func() float64 { return float64(rng.IntN(4)) },
		"zeros":    func() float64 { return math.Copysign(0, float64(rng.IntN(2))-0.5) },
		"infinite": func() float64 { return []float64{math.Inf(1), math.Inf(-1), rng.NormFloat64()}[rng.IntN(3)] },
		"nan":      func() float64 { return []float64{math.NaN(), rng.NormFloat64(), rng.NormFloat64()}[rng.IntN(3)] },
	}
	for k := 5; k <= maxRankK; k++ {
		for name, gen := range gens {
			t.Run(fmt.Sprintf("K=%d/%s", k, name), func(t *testing.T) {
				for range 200 {
					var src [maxRankK]float64
					arms := make([]uint8, k)
					for i := range src {
						src[i] = gen() // lanes >= k too: they must not matter
					}
					for i, p := range rng.Perm(k) {
						arms[i] = uint8(p)
					}
					wantKeys, wantOrd := slices.Clone(src[:k]), slices.Clone(arms)
					sortDesc(wantKeys, wantOrd)
					keys, ord := make([]float64, k), make([]uint8, k)
					sortRanked(keys, ord, &src, arms)
					for r := range keys {
						if math.Float64bits(keys[r]) != math.Float64bits(wantKeys[r]) || ord[r] != wantOrd[r] {
							t.Fatalf("src %v arms %v: got %v %v, want %v %v", src[:k], arms, keys, ord, wantKeys, wantOrd)
						}
					}
					var pos, want [maxRankK]int64
					ranks16(&src, k, &pos)
					ranksGo(&src, k, &want)
					if !slices.Equal(pos[:k], want[:k]) {
						t.Fatalf("ranks16 %v, ranksGo %v for %v", pos[:k], want[:k], src[:k])
					}
				}
			})
		}
	}
}

func BenchmarkSort10(b *testing.B) {
	// Samples of the ten-arm instance late in a run: tied means, small sds.
	means := []float64{0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01}
	sds := []float64{0.0004, 0.005, 0.005, 0.005, 0.004, 0.004, 0.003, 0.003, 0.003, 0.003}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 4096
	samples := make([][maxRankK]float64, n)
	for s := range samples {
		for r := range means {
			samples[s][r] = means[r] + sds[r]*rng.NormFloat64()
		}
	}
	arms := []uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	keys, ord := make([]float64, 10), make([]uint8, 10)
	b.Run("insertion", func(b *testing.B) {
		for i := range b.N {
			copy(keys, samples[i%n][:10])
			copy(ord, arms)
			sortDesc(keys, ord)
		}
	})
	b.Run("ranked", func(b *testing.B) {
		for i := range b.N {
			sortRanked(keys, ord, &samples[i%n], arms)
		}
	})
}
