//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package testbin

// lock cannot lock here: Build then does without the cache.
func lock(string) (func(), error) { return nil, errNoLock }

// tryLock cannot lock here: the cache is not used, so nothing is pruned.
func tryLock(string) (func(), error) { return nil, errNoLock }
