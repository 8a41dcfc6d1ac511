//go:build !linux

package sdktest

func checkParentDeath(h *Target) error {
	if h.s.exe == "" {
		return skipError("a plugin value served in process has no process of its own; RunExecutable or `bench conform` check its executable")
	}
	return skipError("checked on Linux only (it reads /proc)")
}
