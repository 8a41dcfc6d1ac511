package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestLimitsParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"4GiB", 4 << 30, false}, {"256MiB", 256 << 20, false}, {"1.5G", 3 << 29, false},
		{"1024", 1024, false}, {"2 kb", 2048, false}, {"1TiB", 1 << 40, false},
		{"", 0, true}, {"-1GiB", 0, true}, {"4 parsecs", 0, true}, {"GiB", 0, true},
	} {
		got, err := ParseSize(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.err)
		}
	}
	for n, want := range map[int64]string{4 << 30: "4GiB", 1536 << 10: "1536KiB", 1000: "1000B", 3 << 29: "1536MiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLimitsInferHit(t *testing.T) {
	rl := DefaultLimits
	rl.By = ByRlimit
	for _, c := range []struct {
		name   string
		l      Limits
		output string
		signal int
		cgroup bool
		want   string // "" for no verdict
	}{
		{"files", rl, "open /dev/null: too many open files", 0, false, "probably hit the open-files limit (1024 per process"},
		{"fsize signal", rl, "", sigXFSZ, false, "hit the disk limit (1GiB"},
		{"fsize error", rl, "write big: file too large", 0, false, "probably hit the disk limit"},
		{"memory", rl, "fatal error: out of memory", 0, false, "probably hit the memory limit (4GiB of address space"},
		{"memory under a cgroup is the cgroup's to say", rl, "fatal error: out of memory", 0, true, ""},
		{"thread, tasks in force", rl, "runtime: failed to create new OS thread", 0, false, "probably hit the tasks limit"},
		{"thread, tasks not in force", Limits{Memory: 4 << 30, By: ByRlimit}, "runtime/cgo: pthread_create failed: Resource temporarily unavailable", 0, false, "probably hit the memory limit"},
		{"nothing", rl, "panic: index out of range", 0, false, ""},
		{"files not limited", Limits{By: ByRlimit}, "too many open files", 0, false, ""},
	} {
		got := c.l.inferHit(c.output, c.signal, c.cgroup)
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q...", c.name, got, c.want)
		}
		if got != "" && !strings.Contains(got, "raise with --limit-") {
			t.Errorf("%s: %q names no flag", c.name, got)
		}
	}
}

func TestLimitsDefaultsAndPlan(t *testing.T) {
	l := Limits{Tasks: 512, Disk: -1}.withDefaults()
	if l.Memory != DefaultLimits.Memory || l.Tasks != 512 || l.Disk != 0 || l.DiskFiles != DefaultLimits.DiskFiles {
		t.Errorf("withDefaults: %+v", l)
	}
	var ce *ConfigError
	if _, err := (Limits{By: "magic"}).plan(All, true); !errors.As(err, &ce) || ce.Setting != SettingLimitBy || ce.Value != "magic" {
		t.Errorf("limit-by magic: %v, want a ConfigError naming the setting and the value", err)
	}
	if _, err := (Limits{By: ByRlimit, Memory: 1 << 30}).plan(All, true); !errors.As(err, &ce) || ce.Setting != SettingLimitMemory || ce.Value != "1GiB" {
		t.Errorf("an address-space limit under the floor: %v, want a ConfigError naming the memory limit and 1GiB", err)
	}
	p, err := (Limits{By: ByRlimit}).plan(Landlock|Seccomp, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tasks != 0 || len(p.Notes) == 0 || !strings.Contains(p.String(), "tasks not limited") {
		t.Errorf("by rlimit without a user namespace, tasks must not be limited, and said so: %s", p)
	}
	if p, _ := (Limits{}).plan(All, false); p.By != byNone || p.Memory != 0 {
		t.Errorf("without the launcher: %+v", p)
	}
}

func TestLimitsClue(t *testing.T) {
	for line, want := range map[string]bool{
		"runtime/cgo: pthread_create failed: Resource temporarily unavailable": true,
		"hog: opening file 1014: open /dev/null: too many open files":          true,
		"OSError: [Errno 24] Too many open files":                              true,
		"MemoryError":            true,
		"goroutine 7 [syscall]:": false,
		"rip    0x7f5dc4543eec":  false,
	} {
		if got := LimitClue(line); got != want {
			t.Errorf("LimitClue(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestConfigError: a Config that cannot be had says which setting and
// which value, and names no flag (the command maps the setting to its
// own).
func TestConfigError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := Config{Level: Off, Read: []string{missing}}.Plan()
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Setting != SettingRead || ce.Value != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing read path: %v, want a ConfigError with the path, wrapping ErrNotExist", err)
	}
	e := strictUnavailable("missing seccomp", Auto, Off).(*ConfigError)
	if got, want := e.Error(), "sandbox level strict: missing seccomp (auto runs them under what it allows, off runs them unconfined)"; got != want {
		t.Errorf("strict: %q, want %q", got, want)
	}
	if got, want := e.InsteadText("--sandbox "), " (--sandbox auto runs them under what it allows, --sandbox off runs them unconfined)"; got != want {
		t.Errorf("InsteadText: %q, want %q", got, want)
	}
	for _, err := range []error{err, e} {
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%q names a flag", err)
		}
	}
}

// TestLevelValue: a *Level is a flag's value, parsed once.
func TestLevelValue(t *testing.T) {
	var l Level
	if err := l.Set("STRICT"); err != nil || l != Strict || l.String() != "strict" {
		t.Errorf("Set(STRICT): %v, %v", l, err)
	}
	if err := l.UnmarshalText([]byte("off")); err != nil || l != Off {
		t.Errorf("UnmarshalText(off): %v, %v", l, err)
	}
	if err := l.Set("none"); err == nil || l != Off {
		t.Errorf("Set(none): %v, %v; want an error and the level unchanged", l, err)
	}
	if b, _ := Auto.MarshalText(); string(b) != "auto" {
		t.Errorf("MarshalText: %q", b)
	}
}
