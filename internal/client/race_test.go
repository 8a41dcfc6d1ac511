//go:build race

package client

// raceEnabled: the race detector slows every memory access tenfold, so
// timings in tests mean nothing.
const raceEnabled = true
