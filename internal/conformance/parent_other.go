//go:build !linux

package conformance

func checkParentDeath(h *Target) error {
	if h.s.exe == "" {
		return skipError("a plugin value served in process has no process of its own; `bench conform` checks its executable")
	}
	return skipError("checked on Linux only (it reads /proc)")
}

// ServeIntermediate returns at once: the parent-death rule is checked on
// Linux only.
func ServeIntermediate(Launcher) {}
