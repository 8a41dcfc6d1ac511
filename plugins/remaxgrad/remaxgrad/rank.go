package remaxgrad

// maxRankK is the largest K whose samples the AVX2 path sorts by rank.
const maxRankK = 16

// ranksGo sets pos[j] = #{i < k : keys[i] > keys[j]} for j < k: the
// position of keys[j] in decreasing order when the first k keys are
// distinct numbers. It is what ranks16 computes in AVX2.
func ranksGo(keys *[maxRankK]float64, k int, pos *[maxRankK]int64) {
	for j := range k {
		var p int64
		for i := range k {
			if keys[i] > keys[j] {
				p++
			}
		}
		pos[j] = p
	}
}

// sortRanked writes the first len(keys) values of src into keys in
// decreasing order, and r8[j] alongside src[j] into ord. Each value's
// position is its count of larger values, from ranks16: one comparison of
// every pair without a branch, where insertion sort mispredicted about one
// branch per inversion (the ten-arm instance's tied arms sample in random
// order). Ties and NaNs, whose counts collide, fall back to sortDesc, so the
// result is always sortDesc's: for distinct numbers the decreasing order is
// unique.
func sortRanked(keys []float64, ord []uint8, src *[maxRankK]float64, r8 []uint8) {
	k := len(keys)
	var pos [maxRankK]int64
	ranks16(src, k, &pos)
	var seen uint32
	ord, r8 = ord[:k], r8[:k]
	for j, a := range r8 {
		p := pos[j&(maxRankK-1)] & (maxRankK - 1)
		seen |= 1 << p
		keys[p], ord[p] = src[j&(maxRankK-1)], a
	}
	if seen != 1<<k-1 {
		copy(keys, src[:k])
		copy(ord, r8)
		sortDesc(keys, ord)
	}
}
