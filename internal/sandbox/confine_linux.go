package sandbox

// confine: the launcher's layers, applied in one order, written once.

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// A step is one part of the launcher's setup: a layer, or the half of one
// that has a place of its own in the order.
type step struct {
	name string
	// thread: the step confines the calling thread only (Landlock,
	// seccomp without TSYNC, no_new_privs and capabilities are per
	// thread); else it applies to the whole launcher.
	thread bool
	// when says whether the step applies under s; nil: always.
	when  func(s spec) bool
	apply func(*setup) error
}

// setup is what the steps share while they apply: the spec, and what an
// earlier step built for a later one.
type setup struct {
	spec         spec
	ruleset      int    // the Landlock ruleset's descriptor; -1 until built
	rulesetFlags uint32 // landlock_restrict_self's flags for it
	filter       *unix.SockFprog
}

func layer(l Layers) func(spec) bool { return func(s spec) bool { return s.Layers&l != 0 } }
func confined(s spec) bool           { return s.Layers != 0 }
func starts(s spec) bool             { return !s.Probe }

// order is the launcher's setup, in the order confine applies it. Why
// this order:
//
//   - limits first: the launcher joins its cgroup and sets its rlimits
//     before anything else runs, so that nothing of the plugin ever runs
//     outside them (limits_linux.go);
//   - non-dumpable and child subreaper next, before the plugin exists:
//     its /proc entries are closed to the plugin, and no descendant of
//     the plugin is ever reparented past it (reaper_linux.go);
//   - namespaces before mounts: a launcher that is not the init of a new
//     PID namespace refuses before it mounts anything; the mounts and the
//     hostname before any thread is confined, for they need the
//     capabilities that step drops, and seccomp denies mount and
//     sethostname (namespaces_linux.go, mounts_linux.go);
//   - every step that applies to the whole launcher before those that
//     confine one thread: the thread steps run on a thread of the
//     launcher's own (not its thread-group leader), which then starts the
//     plugin and ends, so that the launcher stays outside the plugin's
//     Landlock domain, whose signal scope (ABI 6) forbids the plugin to
//     signal it (the scope is checked against the target's domain);
//   - the Landlock ruleset and the seccomp filter are built before
//     anything of the thread is given up: opening the ruleset's paths
//     needs the launcher's own access, and a layer the machine cannot
//     build fails naming itself (which the probe reads, detect_linux.go)
//     before the thread is changed;
//   - capabilities before no_new_privs and both before Landlock and
//     seccomp: the secure bits need CAP_SETPCAP, which the drop then
//     removes, and without CAP_SYS_ADMIN both landlock_restrict_self and
//     a seccomp filter require no_new_privs (caps_linux.go);
//   - seccomp last of the layers: every call of the setup is made without
//     a filter, so the filter's list can never break the setup
//     (landlock_linux.go, seccomp_linux.go);
//   - descriptors last, just before the plugin is started from the thread.
//
// A test (TestConfineOrder) checks that every whole-launcher step comes
// before the first thread step.
var order = []step{
	{name: "limits", apply: joinLimits},
	{name: "non-dumpable", apply: nonDumpable},
	{name: "child subreaper", apply: becomeSubreaper},
	{name: "namespaces", when: layer(Namespaces), apply: checkInit},
	{name: "mounts", when: layer(Namespaces), apply: mountProc},
	{name: "hostname", when: layer(Namespaces), apply: setHostname},

	{name: "landlock ruleset", thread: true, when: layer(Landlock), apply: buildRuleset},
	{name: "seccomp filter", thread: true, when: layer(Seccomp), apply: buildFilter},
	{name: "capabilities", thread: true, when: confined, apply: dropCapabilities},
	{name: "no_new_privs", thread: true, when: confined, apply: noNewPrivs},
	{name: "landlock", thread: true, when: layer(Landlock), apply: enforceRuleset},
	{name: "seccomp", thread: true, when: layer(Seccomp), apply: loadFilter},
	{name: "descriptors", thread: true, when: starts, apply: closeInherited},
}

// confine applies order's steps under s: those for the whole launcher on
// the calling thread, then, on a new thread locked to a goroutine of its
// own, those for one thread, and from that thread calls start (which
// starts the plugin, that inherits the thread's confinement). It returns
// what start returned, or the launcher's exit code for the first step
// that failed (the error, on stderr, names the layer).
func confine(s spec, start func() launched) launched {
	st := &setup{spec: s, ruleset: -1}
	apply := func(thread bool) int {
		for _, p := range order {
			if p.thread != thread || p.when != nil && !p.when(s) {
				continue
			}
			if err := p.apply(st); err != nil {
				return fail(exitSetup, "%v", err)
			}
		}
		return 0
	}
	if code := apply(false); code != 0 {
		return launched{code: code}
	}
	ch := make(chan launched, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, and the
		// runtime runs nothing else on it meanwhile.
		runtime.LockOSThread()
		if code := apply(true); code != 0 {
			ch <- launched{code: code}
			return
		}
		ch <- start()
	}()
	return <-ch
}
