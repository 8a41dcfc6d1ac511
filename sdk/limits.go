package sdk

import "github.com/regretbench/regretbench/internal/wire"

// Limits on what a plugin may declare. The host sizes its buffers by these
// declarations before round 1: every diagnostic is kept for every
// replication at every diagnostic checkpoint, and travels in every
// checkpoint's step frame. Serve refuses a Plugin beyond them, so an author
// learns at once, and the host refuses a plugin in any language that
// declares more.
const (
	// MaxDiagnostics (64) bounds the diagnostic names of a plugin.
	MaxDiagnostics = wire.MaxDiagnostics
	// MaxParams (64) bounds the parameters of a plugin.
	MaxParams = wire.MaxParams
	// MaxNameLen (64) bounds, in bytes, the plugin's name and the name of
	// each parameter and diagnostic: they are keys in results files and
	// column headings in tables.
	MaxNameLen = wire.MaxNameLen
	// MaxTextLen (1024) bounds, in bytes, the version, the SDK string, each
	// parameter's doc and each string default.
	MaxTextLen = wire.MaxTextLen
)
