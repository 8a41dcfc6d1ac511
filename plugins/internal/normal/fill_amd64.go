//go:build !purego

package normal

// fillFast draws into dst from the generator state *state while draws land
// inside their layer's rectangle. At the first that does not, it returns
// its index n and the draw u, with *state just past it; otherwise it
// returns len(dst). The values are those of Norm.
//
//go:noescape
func fillFast(state *uint64, dst []float64) (n int, u uint64)
