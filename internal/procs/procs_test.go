package procs

import (
	"runtime"
	"testing"
)

// TestSpareP: SpareP adds exactly one P, once, and Cores does not count
// it; a GOMAXPROCS set in the environment is left alone.
func TestSpareP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer spared.Store(0)

	t.Setenv("GOMAXPROCS", "2")
	SpareP()
	if got := runtime.GOMAXPROCS(0); got != 2 || Cores() != 2 {
		t.Fatalf("with GOMAXPROCS set: %d Ps, Cores %d; want 2 and 2", got, Cores())
	}

	t.Setenv("GOMAXPROCS", "")
	for range 2 {
		SpareP()
		if got := runtime.GOMAXPROCS(0); got != 3 || Cores() != 2 {
			t.Fatalf("spared: %d Ps, Cores %d; want 3 and 2", got, Cores())
		}
	}
	// A program that sets GOMAXPROCS itself afterwards gets what it set.
	runtime.GOMAXPROCS(5)
	if Cores() != 5 {
		t.Fatalf("after GOMAXPROCS(5), Cores is %d", Cores())
	}
}
