package registry

import (
	"io/fs"
	"syscall"
)

// identity is what names one content of one file for sums: the file
// (device, inode) and what any change to its content changes (size,
// modification and status-change times; the kernel sets the latter on
// every write, and no user can set it back).
type identity struct {
	dev, ino, size  uint64
	mtimeS, mtimeNs int64
	ctimeS, ctimeNs int64
}

// fileKey returns the identity of the open file st describes; false when
// the system does not say (then SHA256 hashes every time).
func fileKey(st fs.FileInfo) (identity, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}, false
	}
	return identity{
		dev: uint64(sys.Dev), ino: uint64(sys.Ino), size: uint64(sys.Size),
		mtimeS: int64(sys.Mtim.Sec), mtimeNs: int64(sys.Mtim.Nsec),
		ctimeS: int64(sys.Ctim.Sec), ctimeNs: int64(sys.Ctim.Nsec),
	}, true
}
