//go:build !unix

package procrun

import "os"

// MarkOwner does nothing here: without /proc a later bench could not tell
// whether the owner runs, and never sweeps (see sweep.go).
func MarkOwner(dir string) error { return nil }

// Sweep sweeps nothing here (see sweep.go).
func Sweep(dir string) []string { return nil }

func sweepTMPDIR() {}

// removeDir removes the private directory dir.
func removeDir(dir string) { os.RemoveAll(dir) }
