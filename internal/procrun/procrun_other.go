//go:build !linux

package procrun

// waitExit cannot wait without reaping here: it reports false, and the
// process group is killed only by Kill and when the client closes, not
// when the process exits on its own.
func waitExit(int) bool { return false }
