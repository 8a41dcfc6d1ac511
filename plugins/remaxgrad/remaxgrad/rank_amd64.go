//go:build !purego

package remaxgrad

import "golang.org/x/sys/cpu"

// ranks16 is ranksGo in AVX2 (rank_amd64.s): for each i < k, one broadcast,
// four compares against all sixteen keys and four subtractions of the
// masks from the counts.
//
//go:noescape
func ranks16(keys *[maxRankK]float64, k int, pos *[maxRankK]int64)

// useRanks selects sortRanked for 5 <= K <= maxRankK.
var useRanks = cpu.X86.HasAVX2
