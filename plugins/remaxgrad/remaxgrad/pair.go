// The kernels of the M = 2 pair path (buildPair, Gradient): Go loops, and
// on amd64 AVX assembly that gives the same bits (pair_amd64.s).

package remaxgrad

import "math"

// absDiffCols sets out[t] = sum_s |a[s] - b[t*stride+s]| over s < len(a),
// for t < len(out): the distances of column a to len(out) columns stored
// stride apart in b. Each sum is accumulated as absDiffSum does, so the
// assembly version on amd64 gives the same bits.
func absDiffCols(a, b []float64, stride int, out []float64) {
	if len(out) == 0 {
		return
	}
	if len(a) > stride || len(b) < (len(out)-1)*stride+len(a) {
		panic("remaxgrad: absDiffCols: columns out of range")
	}
	absDiffColsImpl(a, b, stride, out)
}

func absDiffColsGo(a, b []float64, stride int, out []float64) {
	for t := range out {
		out[t] = absDiffSum(a, b[t*stride:])
	}
}

// absDiffSum returns sum_s |a[s] - b[s]| over len(a) <= len(b) elements,
// in four interleaved sums: element s goes to sum s mod 4, the last len(a)
// mod 4 elements to sum 0, and the result is (d0 + d1) + (d2 + d3). The
// assembly keeps exactly that order, one sum per vector lane.
func absDiffSum(a, b []float64) float64 {
	b = b[:len(a)]
	var d0, d1, d2, d3 float64
	s := 0
	for ; s+4 <= len(a); s += 4 {
		x, y := (*[4]float64)(a[s:]), (*[4]float64)(b[s:])
		d0 += math.Abs(x[0] - y[0])
		d1 += math.Abs(x[1] - y[1])
		d2 += math.Abs(x[2] - y[2])
		d3 += math.Abs(x[3] - y[3])
	}
	for ; s < len(a); s++ {
		d0 += math.Abs(a[s] - b[s])
	}
	return (d0 + d1) + (d2 + d3)
}

// pairGrad sets g[i] = sum_l pair[i*k+l] * pi[l] - dot for the symmetric
// k x k matrix pair (k = len(pi)), each sum in the order of l. On amd64
// with AVX, rows go four at a time (pairGradAVX): by symmetry, rows i..i+3
// of column l are the contiguous pair[l*k+i : l*k+i+4], so each lane adds
// its products in the same order as the Go loop, to the same bits.
func pairGrad(g, pair, pi []float64, dot float64) {
	k := len(pi)
	rows := pairGradImpl(g, pair, pi, dot)
	for i := rows; i < k; i++ {
		row := pair[i*k : i*k+k]
		row = row[:len(pi)]
		var r float64
		for l, x := range row {
			r += x * pi[l]
		}
		g[i] = r - dot
	}
}
