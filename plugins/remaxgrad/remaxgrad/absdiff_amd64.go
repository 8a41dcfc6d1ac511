//go:build !purego

package remaxgrad

import "golang.org/x/sys/cpu"

// absDiffColsAVX is absDiffColsGo in AVX, two columns at a time, each
// column's four sums in the lanes of one register (absdiff_amd64.s). It
// makes the M = 2 pairwise sums about 2x faster than Go's scalar loop,
// whose math.Abs moves every value to an integer register and back.
//
//go:noescape
func absDiffColsAVX(a, b []float64, stride int, out []float64)

var hasAVX = cpu.X86.HasAVX

func absDiffColsImpl(a, b []float64, stride int, out []float64) {
	if hasAVX {
		absDiffColsAVX(a, b, stride, out)
		return
	}
	absDiffColsGo(a, b, stride, out)
}
