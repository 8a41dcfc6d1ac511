//go:build !amd64 || purego

package remaxgrad

func absDiffColsImpl(a, b []float64, stride int, out []float64) {
	absDiffColsGo(a, b, stride, out)
}

func pairGradImpl(g, pair, pi []float64, dot float64) int { return 0 }
