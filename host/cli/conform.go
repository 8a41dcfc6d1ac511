package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

// conformOptions are the argument and flags of bench conform.
type conformOptions struct {
	f            *factory
	target       string   // NAME|PATH of the plugin
	quick        bool     // --quick
	only         []string // --rule
	seed         string   // --seed; "": a random one
	verbose      bool     // -v
	startTimeout time.Duration
	stepTimeout  time.Duration
	sandbox      sandboxOptions
}

// defaultConformStepTimeout is bench conform's --step-timeout: the kit's
// sessions are small, so a call that takes longer than this is stuck.
const defaultConformStepTimeout = 30 * time.Second

// newCmdConform returns bench conform. runF, when not nil, receives the
// options in place of checking the plugin (for tests).
func newCmdConform(f *factory, runF func(*conformOptions) error) *cobra.Command {
	o := &conformOptions{f: f}
	cmd := &cobra.Command{
		Use:   "conform NAME|PATH",
		Short: "Check that a plugin executable, in any language, follows the plugin contract",
		Long: `Run the conformance kit against a plugin executable: NAME is looked up in
the plugin search path as bench-plugin-NAME (--plugin-dir, BENCH_PLUGIN_PATH,
then the shipped plugins beside bench), and a PATH (one
holding a /) is used as it is. The plugin is launched as a run launches it,
over every transport it offers (the step socket, the Steps stream, unary
Step), and checked against the rules of the Go SDK's sdktest package: the
very same catalogue, so a Go plugin that passes its sdktest tests passes
here.

Every session's policy seed, arms, horizon and replications are drawn from
one seed, random unless --seed gives it, printed on the first line: the
same seed (and --quick) replays the very same sessions. The sizes range
over real scenarios' (2 to 20 arms, horizons of tens to tens of thousands
of rounds, 1 to hundreds of replications), so a plugin cannot tell the
kit's sessions from a run's.

Each failed rule is reported on one line with its first failure, the rule
it breaks and the command that replays it; passing rules are counted. -v
prints every rule over every transport, with every failure and the
sessions played:

  PASS valid-arms/socket
  FAIL batch-split/grpc-unary: alone it pulls arm 2, in the batch of 40 arm 0 (round 7, replication 13)
  SKIP ...: why the rule was not checked

The last line counts them: N passed, N failed. A plugin that does not
answer Open, Step or Close within --step-timeout (Describe: within
--start-timeout) fails the rule; it is killed, and the next rule starts a
fresh one.

--rule NAME checks only the rules named. The rules: ` + ruleNames() + `.

Exit codes: 0 when every rule passes; 1 when a rule fails; 2 on a usage
error or when the plugin is not found; 130 (143) on SIGINT (SIGTERM).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.target = args[0]
			if err := checkTimeouts(o.stepTimeout, o.startTimeout); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return conformRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.quick, "quick", false, "smaller sessions (at most 300 rounds, 100 replications), the long ones kept: faster, less thorough")
	fs.StringSliceVar(&o.only, "rule", nil, "check only this rule (repeatable, or comma-separated; the handshake is always checked)")
	fs.StringVar(&o.seed, "seed", "", "the seed of every session (0x... or decimal), as a run printed it; default (or random): a random one. Not read from BENCH_SEED or --config, which hold the scenario's")
	fs.SetAnnotation("seed", flagconfig.CommandLineOnly, []string{"true"})
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "print every rule over every transport, every failure and the sessions played")
	fs.DurationVar(&o.stepTimeout, "step-timeout", defaultConformStepTimeout, "fail a rule whose plugin does not answer Open, a round or Close within this time")
	fs.DurationVar(&o.startTimeout, "start-timeout", defaultStartTimeout, "fail a plugin that does not complete its handshake and Describe within this time")
	addSandboxFlags(fs, &o.sandbox)
	return cmd
}

// conformRun checks the plugin o names against the conformance kit.
func conformRun(ctx context.Context, o *conformOptions) error {
	seed := sdktest.NewSeed()
	if o.seed != "" && o.seed != "random" {
		var err error
		if seed, err = sdktest.ParseSeed(o.seed); err != nil {
			return withCode(ExitInput, fmt.Errorf("--seed: %w", err))
		}
	}
	path, err := conformTarget(o.f.plugins(), o.target)
	if err != nil {
		return withCode(ExitInput, err)
	}
	// exec looks a name without a slash up in PATH: a plugin
	// found in --plugin-dir . is ./bench-plugin-NAME.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	plan, err := o.sandbox.plan(o.f.stderr)
	if err != nil {
		return err
	}
	opts := []sdktest.Option{sdktest.WithSeed(seed), sdktest.WithStartTimeout(o.startTimeout), sdktest.WithStepTimeout(o.stepTimeout), sdktest.WithSandbox(plan)}
	rules := sdktest.Rules()
	if len(o.only) > 0 {
		known := map[string]bool{}
		var names []string
		for _, r := range rules {
			known[r.Name] = true
			names = append(names, r.Name)
		}
		for _, n := range o.only {
			if !known[n] {
				return withCode(ExitInput, fmt.Errorf("--rule %s: no such rule; the rules are %s", n, strings.Join(names, ", ")))
			}
		}
		opts = append(opts, sdktest.WithRules(o.only...))
	}
	if o.quick {
		opts = append(opts, sdktest.Quick())
	}
	// The checks' messages quote the plugin's answers, errors and stderr:
	// escaped for the terminal, each line on its own (termsafe).
	w := termsafe.Writer(o.f.stdout)
	fmt.Fprintf(w, "seed %s\n", sdktest.FormatSeed(seed))
	fmt.Fprintf(w, "conform %s (sandbox %s)\n", path, plan.Layers)
	// A script whose #! line will not start it, or whose Python cannot
	// import the SDK, fails every rule at the handshake: say why first.
	for _, warn := range registry.ShebangWarnings(path, plan, o.startTimeout) {
		fmt.Fprintf(o.f.stderr, "bench: warning: %s\n", warn)
	}
	rep := &conformReport{w: w, verbose: o.verbose, replay: func(rule string) string {
		quick := ""
		if o.quick {
			quick = " --quick"
		}
		return fmt.Sprintf("bench conform --seed %s%s --rule %s %s", sdktest.FormatSeed(seed), quick, rule, path)
	}}
	trs := sdktest.CheckExecutable(ctx, path, rep.add, opts...)
	rep.flush()
	rep.flushSkips()
	if ctx.Err() != nil {
		planned := ""
		if len(trs) > 0 {
			n := 0
			for _, r := range rules {
				if len(o.only) > 0 && !slices.Contains(o.only, r.Name) && r.Name != "handshake" {
					continue
				}
				if r.Once() {
					n++
				} else {
					n += len(trs)
				}
			}
			planned = fmt.Sprintf(" of %d", n)
		}
		fmt.Fprintf(w, "interrupted after %d%s checks: %d passed, %d failed\n", rep.passed+len(rep.failed)+rep.skipped, planned, rep.passed, len(rep.failed))
		if code, sig, ok := interruption(ctx); ok {
			return withCode(code, signalCause{sig})
		}
		return withCode(ExitInterrupted, errors.New("interrupted"))
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
		return withCode(ExitFailure, fmt.Errorf("plugin %s does not conform: %d check(s) failed: %s",
			path, len(rep.failed), strings.Join(rep.failed, ", ")))
	}
	return nil
}

// conformReport prints the kit's results as they come: every one with -v,
// else one entry per failed or skipped rule, its transports together.
type conformReport struct {
	w       io.Writer
	verbose bool
	replay  func(rule string) string // the command that replays a rule

	passed, skipped int
	failed          []string         // the failed checks' names
	pending         []sdktest.Result // the current rule's results (not -v)
	// Consecutive rules skipped for one reason, printed on one line (not -v).
	skipRules  []string
	skipReason string
}

// detailIndent indents the lines under a result's.
const detailIndent = "       "

func (r *conformReport) add(res sdktest.Result) {
	switch {
	case res.Skipped != "":
		r.skipped++
	case res.Err != nil:
		r.failed = append(r.failed, res.Name())
	default:
		r.passed++
	}
	if r.verbose {
		r.printVerbose(res)
		return
	}
	if len(r.pending) > 0 && r.pending[0].Rule != res.Rule {
		r.flush()
	}
	r.pending = append(r.pending, res)
}

func (r *conformReport) printVerbose(res sdktest.Result) {
	w := r.w
	switch {
	case res.Skipped != "":
		fmt.Fprintf(w, "SKIP %s: %s\n", res.Name(), res.Skipped)
	case res.Err != nil:
		fmt.Fprintf(w, "FAIL %s: %s\n", res.Name(), indentRest(res.Err.Error(), detailIndent))
		fmt.Fprintf(w, "%srule: %s\n", detailIndent, res.Doc)
	default:
		fmt.Fprintf(w, "PASS %s\n", res.Name())
	}
	if len(res.Sessions) > 0 {
		fmt.Fprintf(w, "%ssessions: %s\n", detailIndent, strings.Join(res.Sessions, "; "))
	}
	if res.Err != nil {
		fmt.Fprintf(w, "%sreproduce: %s\n", detailIndent, r.replay(res.Rule))
	}
}

// flush prints the pending rule's entry: its first failure, else that it
// was skipped (one line for consecutive rules skipped for one reason).
func (r *conformReport) flush() {
	rs := r.pending
	r.pending = nil
	if len(rs) == 0 {
		return
	}
	var fails, others []sdktest.Result
	for _, res := range rs {
		if res.Err != nil {
			fails = append(fails, res)
		} else if res.Skipped == "" {
			others = append(others, res)
		}
	}
	w := r.w
	if len(fails) == 0 {
		if len(others) > 0 || rs[0].Skipped == "" {
			return // passed (where it applied)
		}
		if rs[0].Skipped != r.skipReason {
			r.flushSkips()
		}
		r.skipRules, r.skipReason = append(r.skipRules, rs[0].Rule), rs[0].Skipped
		return
	}
	r.flushSkips()
	first := fails[0]
	fmt.Fprintf(w, "FAIL %s: %s\n", first.Name(), firstLine(first.Err.Error()))
	var also []string
	for _, f := range fails[1:] {
		also = append(also, f.Transport)
	}
	if len(also) > 0 {
		fmt.Fprintf(w, "%salso over %s (-v: every failure)\n", detailIndent, strings.Join(also, ", "))
	} else if strings.Contains(first.Err.Error(), "\n") {
		fmt.Fprintf(w, "%s(-v: every failure)\n", detailIndent)
	}
	fmt.Fprintf(w, "%srule: %s\n", detailIndent, first.Doc)
	fmt.Fprintf(w, "%sreproduce: %s\n", detailIndent, r.replay(first.Rule))
}

// flushSkips prints the rules skipped for one reason, if any.
func (r *conformReport) flushSkips() {
	if len(r.skipRules) > 0 {
		fmt.Fprintf(r.w, "SKIP %s: %s\n", strings.Join(r.skipRules, ", "), r.skipReason)
	}
	r.skipRules, r.skipReason = nil, ""
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// conformTarget resolves bench conform's argument: a path when it holds a
// path separator, else a plugin name of the search path.
func conformTarget(dirs registry.Path, arg string) (string, error) {
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

// indentRest indents every line of s but the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// ruleNames lists the kit's rules for the help text.
func ruleNames() string {
	var names []string
	for _, r := range sdktest.Rules() {
		names = append(names, r.Name)
	}
	// Wrapped as the rest of the help text.
	var b strings.Builder
	col := len("--rule NAME checks only the rules named. The rules: ")
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
