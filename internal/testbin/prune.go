package testbin

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// The cache holds one directory per checkout and set of build tags, each
// 20 to 500 MB (bench, the plugins, the fixtures; the installs of the
// install tests). Checkouts come and go (worktrees, fresh clones in
// temporary directories), and nothing else removes theirs: prune, once a
// test process, removes the directory of a checkout that no longer
// exists, one not used for MaxAge, and the least recently used beyond
// MaxKeep, so that the cache stays within MaxKeep checkouts' worth.
const (
	// MaxAge is how long a cache directory is kept after its last use.
	MaxAge = 24 * time.Hour
	// MaxKeep is how many cache directories are kept at most.
	MaxKeep = 8
	// busyAge is how recently used a directory is left alone by the
	// MaxKeep rule: another test process may still be linking from it.
	busyAge = time.Hour
)

// Files in each cache directory: the checkout it serves, and the stamp
// whose modification time says when it was last used.
const (
	rootFile = ".root"
	usedFile = ".used"
)

var pruneOnce sync.Once

// touch records that dir, the cache directory of the module at modRoot,
// is in use now, and prunes the cache root above it once per process.
func touch(dir, modRoot string) {
	if _, err := os.Stat(filepath.Join(dir, rootFile)); errors.Is(err, os.ErrNotExist) {
		os.WriteFile(filepath.Join(dir, rootFile), []byte(modRoot), 0o644)
	}
	stamp := filepath.Join(dir, usedFile)
	now := time.Now()
	if err := os.Chtimes(stamp, now, now); err != nil {
		os.WriteFile(stamp, nil, 0o644)
	}
	pruneOnce.Do(func() { prune(filepath.Dir(dir), now) })
}

// entry is one cache directory and when it was last used.
type entry struct {
	path string
	used time.Time
	gone bool // its checkout no longer exists
}

// prune removes from the cache root the directories of checkouts that no
// longer exist, those not used since MaxAge before now, and beyond the
// MaxKeep most recently used, those not used for busyAge. A directory
// whose lock another process holds (it is building there) is left. Errors
// are ignored: a directory left is removed by a later run.
func prune(root string, now time.Time) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	var dirs []entry
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(root, e.Name())
		en := entry{path: p}
		if fi, err := os.Stat(filepath.Join(p, usedFile)); err == nil {
			en.used = fi.ModTime()
		} else if fi, err := e.Info(); err == nil { // made before the stamp
			en.used = fi.ModTime()
		}
		if mod, err := os.ReadFile(filepath.Join(p, rootFile)); err == nil {
			_, err := os.Stat(filepath.Join(string(mod), "go.mod"))
			en.gone = errors.Is(err, os.ErrNotExist)
		}
		dirs = append(dirs, en)
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].used.After(dirs[j].used) })
	kept := 0
	for _, en := range dirs {
		idle := now.Sub(en.used)
		if en.gone || idle > MaxAge || (kept >= MaxKeep && idle > busyAge) {
			if removeUnlocked(en.path) {
				continue
			}
		}
		kept++
	}
}

// removeUnlocked removes the cache directory dir unless a process holds
// its lock, and says whether it did.
func removeUnlocked(dir string) bool {
	unlock, err := tryLock(filepath.Join(dir, ".lock"))
	if err != nil {
		return false
	}
	defer unlock()
	// The lock file goes with the directory; the lock ends with it.
	return os.RemoveAll(dir) == nil
}
