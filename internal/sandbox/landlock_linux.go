package sandbox

// Landlock: the plugin may read and execute s.Read, read and write
// s.Write, nothing else; no TCP bind or connect; no signals or abstract
// unix sockets leaving its domain.

import (
	"errors"
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// landlockRuleset builds the plugin's Landlock ruleset: read and execute
// s.Read, read and write s.Write, nothing else; no TCP bind or connect; no
// signals or abstract unix sockets leaving the domain. It degrades to the
// kernel's ABI (best effort), and returns fd -1 when there is no Landlock.
func landlockRuleset(s spec) (int, uint32, error) {
	var rules []landlock.Rule
	for _, p := range s.Read {
		st, err := os.Stat(p)
		if err != nil {
			continue // a path that vanished grants nothing
		}
		if st.IsDir() {
			rules = append(rules, landlock.RODirs(p))
		} else {
			rules = append(rules, landlock.ROFiles(p))
		}
	}
	for _, p := range s.Write {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.IsDir() {
			rules = append(rules, landlock.RWDirs(p))
		} else {
			rules = append(rules, landlock.RWFiles(p))
		}
	}
	// No TCP: the rules above grant no port. The network namespace and
	// seccomp stop the rest (UDP, and Multipath TCP, which Landlock does
	// not see).
	return landlock.V7.BestEffort().NewRulesetFD(rules...)
}

// buildRuleset builds the plugin's ruleset (a step of confine).
func buildRuleset(st *setup) error {
	fd, flags, err := landlockRuleset(st.spec)
	if err != nil {
		return fmt.Errorf("landlock: building the ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("landlock: not available")
	}
	st.ruleset, st.rulesetFlags = fd, flags
	return nil
}

// enforceRuleset restricts the calling thread to the ruleset, for good,
// and closes it (a step of confine).
func enforceRuleset(st *setup) error {
	defer unix.Close(st.ruleset)
	if err := llsys.LandlockRestrictSelf(st.ruleset, st.rulesetFlags); err != nil {
		return fmt.Errorf("landlock: enforcing the ruleset: %w", err)
	}
	return nil
}
