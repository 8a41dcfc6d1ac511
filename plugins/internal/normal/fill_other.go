//go:build !amd64 || purego

package normal

func fillFast(state *uint64, dst []float64) (n int, u uint64) { return fillFastGo(state, dst) }
