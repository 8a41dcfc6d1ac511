// Package conform runs the conformance kit (internal/conformance, the
// catalogue sdk/sdktest checks plugin values with) against a plugin
// executable in any language and reports the outcome, for bench conform:
// which executable a NAME|PATH argument names, which rules to check, how
// the executable is launched (internal/launch, under the sandbox chosen),
// the seeds, the report printed as the results come and the summary line.
//
// It lives on the host side, not in sdktest: an author's tests link
// nothing of the sandbox or the host (sdktest's TestAuthorDeps), and
// sdktest's exported API is an author's.
package conform

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/conformance"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/wire"
)

// The parent-death rule re-executes this program as the process that
// launches the plugin (conformance.ServeIntermediate): bench, or a test
// binary of a package that imports this one.
func init() { conformance.ServeIntermediate(launcher(nil)) }

// launcher launches an executable for the kit as bench does, under plan
// (nil: unconfined).
func launcher(plan *sandbox.Plan) conformance.Launcher {
	return func(path string, o client.StartOptions) (client.Conn, error) {
		p, err := launch.Launch(path, launch.Options{StartTimeout: o.StartTimeout, NoSocket: o.NoSocket, NoStream: o.NoStream, Sandbox: plan})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// ParseSeed parses the seed of every session as a run printed it (0x...
// or decimal); "" and "random" draw a random one.
func ParseSeed(s string) (uint64, error) {
	if s == "" || s == "random" {
		return conformance.NewSeed(), nil
	}
	return conformance.ParseSeed(s)
}

// FormatSeed prints a seed as the kit reports it: 0x and 16 hex digits.
func FormatSeed(s uint64) string { return conformance.FormatSeed(s) }

// Target resolves bench conform's argument to an absolute path: a path
// when it holds a path separator, else a plugin name of the search path
// dirs.
func Target(dirs registry.Path, arg string) (string, error) {
	path, err := target(dirs, arg)
	if err != nil {
		return "", err
	}
	// exec looks a name without a slash up in PATH: a plugin
	// found in --plugin-dir . is ./bench-plugin-NAME.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

func target(dirs registry.Path, arg string) (string, error) {
	if !strings.ContainsRune(arg, os.PathSeparator) {
		return dirs.Find(arg)
	}
	st, err := os.Stat(arg)
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", arg, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("plugin %s: is a directory, want a plugin executable", arg)
	}
	return arg, nil
}

// CheckRules returns an error naming the first of only that is not a rule
// of the kit, with the list of the rules.
func CheckRules(only []string) error {
	known := map[string]bool{}
	var names []string
	for _, r := range conformance.Rules() {
		known[r.Name] = true
		names = append(names, r.Name)
	}
	for _, n := range only {
		if !known[n] {
			return fmt.Errorf("--rule %s: no such rule; the rules are %s", n, strings.Join(names, ", "))
		}
	}
	return nil
}

// RuleNames lists the kit's rules, comma-separated, wrapped at 72
// columns as a help text whose first line already holds col columns.
func RuleNames(col int) string {
	var names []string
	for _, r := range conformance.Rules() {
		names = append(names, r.Name)
	}
	var b strings.Builder
	for i, n := range names {
		word := n + ","
		if i == len(names)-1 {
			word = n
		}
		if col+len(word)+1 > 72 {
			b.WriteString("\n")
			col = 0
		} else if i > 0 {
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}

// Config is what Run checks and how.
type Config struct {
	Path         string        // the plugin executable
	Seed         uint64        // the seed of every session
	Plan         *sandbox.Plan // the sandbox the plugin runs under
	Rules        []string      // check only these (the handshake always); nil: every rule
	Quick        bool          // smaller sessions
	Family       wire.Family   // the reward family the sessions declare; "" for gaussian
	Verbose      bool          // print every rule over every transport
	StartTimeout time.Duration // for the handshake and Describe
	StepTimeout  time.Duration // for each Open, round and Close

	Stdout io.Writer // the report
	Stderr io.Writer // the warnings
}

// NonConforming is Run's error when checks failed.
type NonConforming struct {
	Path   string
	Failed []string // the failed checks' names
}

func (e *NonConforming) Error() string {
	return fmt.Sprintf("plugin %s does not conform: %d check(s) failed: %s",
		e.Path, len(e.Failed), strings.Join(e.Failed, ", "))
}

// Run checks the plugin c names against the conformance kit, printing the
// report on c.Stdout as the results come (escaped for the terminal, each
// line on its own: the checks quote the plugin's answers, errors and
// stderr) and its warnings on c.Stderr. It returns a *NonConforming when a
// check failed. When ctx ends, it prints how many checks ran and returns
// ctx's error.
func Run(ctx context.Context, c Config) error {
	opts := []conformance.Option{conformance.WithSeed(c.Seed), conformance.WithStartTimeout(c.StartTimeout), conformance.WithStepTimeout(c.StepTimeout)}
	if len(c.Rules) > 0 {
		opts = append(opts, conformance.WithRules(c.Rules...))
	}
	if c.Quick {
		opts = append(opts, conformance.Quick())
	}
	if c.Family != "" {
		opts = append(opts, conformance.WithFamily(c.Family))
	}
	w := termsafe.Writer(c.Stdout)
	fmt.Fprintf(w, "seed %s\n", FormatSeed(c.Seed))
	fmt.Fprintf(w, "conform %s (sandbox %s)\n", c.Path, c.Plan.Layers)
	// A script whose #! line will not start it, or whose Python cannot
	// import the SDK, fails every rule at the handshake: say why first.
	for _, warn := range registry.ShebangWarnings(c.Path, c.Plan, c.StartTimeout) {
		fmt.Fprintf(c.Stderr, "bench: warning: %s\n", warn)
	}
	rep := &report{w: w, verbose: c.Verbose, replay: func(rule string) string {
		quick := ""
		if c.Quick {
			quick = " --quick"
		}
		return fmt.Sprintf("bench conform --seed %s%s --rule %s %s", FormatSeed(c.Seed), quick, rule, c.Path)
	}}
	trs := conformance.CheckExecutable(ctx, c.Path, launcher(c.Plan), rep.add, opts...)
	rep.flush()
	rep.flushSkips()
	if ctx.Err() != nil {
		of := ""
		if len(trs) > 0 {
			of = fmt.Sprintf(" of %d", planned(c.Rules, len(trs)))
		}
		fmt.Fprintf(w, "interrupted after %d%s checks: %d passed, %d failed\n", rep.passed+len(rep.failed)+rep.skipped, of, rep.passed, len(rep.failed))
		return ctx.Err()
	}
	fmt.Fprintf(w, "%d passed, %d failed", rep.passed, len(rep.failed))
	var notes []string
	if rep.skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d skipped", rep.skipped))
	}
	if len(trs) > 0 {
		notes = append(notes, "transports: "+strings.Join(trs, ", "))
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(notes, "; "))
	}
	fmt.Fprintln(w)
	if len(rep.failed) > 0 {
		return &NonConforming{Path: c.Path, Failed: rep.failed}
	}
	return nil
}

// planned counts the checks of the rules only names (every rule when
// none; the handshake always) over transports transports.
func planned(only []string, transports int) int {
	n := 0
	for _, r := range conformance.Rules() {
		if len(only) > 0 && !slices.Contains(only, r.Name) && r.Name != "handshake" {
			continue
		}
		if r.Once() {
			n++
		} else {
			n += transports
		}
	}
	return n
}
