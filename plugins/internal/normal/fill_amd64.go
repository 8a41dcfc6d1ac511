//go:build !purego

package normal

// fillFast is fillFastGo in assembly (fill_amd64.s).
//
//go:noescape
func fillFast(state *uint64, dst []float64) (n int, u uint64)
