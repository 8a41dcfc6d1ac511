//go:build !amd64 || purego

package remaxgrad

func ranks16(keys *[maxRankK]float64, k int, pos *[maxRankK]int64) { ranksGo(keys, k, pos) }

// useRanks: without AVX2, insertion sort is faster than counting ranks.
const useRanks = false
