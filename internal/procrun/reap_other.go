//go:build !linux

package procrun

// Outside Linux there is no child subreaper: starts and reaps are not
// tracked, and there is nothing to sweep.

func startTracked(start func() (int, error)) error {
	_, err := start()
	return err
}

func reapTracked(_ int, wait func() error) error { return wait() }

func sweepOrphans() {}

func killTracer(int) {}
