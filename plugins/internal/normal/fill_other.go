//go:build !amd64 || purego

package normal

import (
	"math"
	"math/bits"
)

// fillFast is the assembly's contract in Go: draw into dst while draws
// land inside their layer's rectangle.
func fillFast(state *uint64, dst []float64) (n int, u uint64) {
	st := *state
	for k := range dst {
		st += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(st, st^0xe7037ed1a0b428db)
		u := hi ^ lo
		m := uint32(u) >> 1
		if i := u >> 32 & 127; m < zk[i] {
			dst[k] = math.Float64frombits(math.Float64bits(float64(m)*zw[i]) ^ u<<63)
			continue
		}
		*state = st
		return k, u
	}
	*state = st
	return len(dst), 0
}
