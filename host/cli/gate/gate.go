// Package gate is the bench gate command, and the gate flags a run shares
// with it (bench --scenario X --baseline BASE.json): it maps them to
// host/gate's options and rules, compares two results files and exits as
// the verdict says (exit codes in its help).
package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
)

const exitCodes = `Exit codes:
  0  no regression (every policy better, same, or inconclusive)
  1  regression: some policy is worse than the baseline by more than the
     margin, significant after the Holm correction; with --require-same,
     also any policy whose verdict is not "same" (better, inconclusive,
     new, no baseline)
  2  usage or input error: bad flag, unreadable or invalid results file,
     baseline and current are different experiments (family, arms, means,
     noise_sd, horizon or init_pulls differ; the message lists each) and
     --force is not given, or the baseline has no policy to compare (none
     ran, with two or more replications). Any unexpected error also exits
     2, never 1.
  3  a policy failed in CURRENT (status "failed") or is missing from it
  4  a comparison was inconclusive and --require-conclusive is set
When several apply the first of 2, 3, 1, 4 wins; stderr names every policy
concerned.`

// Options are the gate flags, shared by bench gate and the one-call
// form bench --scenario X --baseline BASE.json.
type Options struct {
	Metric            string
	Margin            string
	Alpha             float64
	Force             bool
	RequireConclusive bool
	RequireSame       bool
	Sequential        bool // --sequential: a sequential gate
	Looks             int  // --looks K: its looks

	Format     string // the verdict's format: table, markdown or json
	FormatFlag string // the flag that sets it: --format (bench gate) or --gate-format (runs)

	Baseline     string // run flags only
	SaveBaseline string
}

// AddFlags registers the gate flags of both forms on fs.
func AddFlags(fs *pflag.FlagSet, g *Options) {
	d := gate.DefaultOptions
	fs.StringVar(&g.Metric, "metric", d.Metric, "metric to gate on (and of the comparison section, with --with or --compare-to): "+metric.List())
	fs.StringVar(&g.Margin, "margin", "5%", "tolerated worsening, relative to the baseline mean: 5% or 0.05")
	fs.Float64Var(&g.Alpha, "alpha", d.Alpha, "family-wise error rate of the Holm-corrected tests (gate and comparison section); the CI level is 1-alpha")
	fs.BoolVar(&g.Force, "force", false, "compare different experiments anyway (unpaired)")
	fs.BoolVar(&g.RequireConclusive, "require-conclusive", false, "exit 4 when a comparison is inconclusive")
	fs.BoolVar(&g.Sequential, "sequential", false, "sequential gate: analyse the replications in --looks cumulative groups and decide each policy at the first look that can (paired only; error rate held over the looks by O'Brien-Fleming-type alpha spending). With --baseline, the run itself stops each policy there; with bench gate, the looks are replayed on the two files")
	fs.IntVar(&g.Looks, "looks", 5, "with --sequential: the number of looks (groups of replications)")
	fs.BoolVar(&g.RequireSame, "require-same", false, "exit 1 unless every policy's verdict is same: any change, better or worse, fails (with --margin 0, for a project gating its own plugins under common random numbers)")
}

// AddRunFlags adds the one-call form's flags to a run's flags.
func AddRunFlags(fs *pflag.FlagSet, g *Options) {
	fs.StringVar(&g.Baseline, "baseline", "", "after the run, gate its results against this baseline results file (exit codes as bench gate)")
	fs.StringVar(&g.SaveBaseline, "save-baseline", "", "write the results file here as a baseline, only when the call succeeds (every policy ok, no regression)")
	fs.StringVar(&g.Format, "gate-format", "", "format of the --baseline verdict: table, markdown or json (default: markdown with --format markdown, else table)")
	g.FormatFlag = "--gate-format"
	AddFlags(fs, g)
}

// Parse checks the flags and maps them to host/gate's options; an error
// names the flag at fault.
func (g *Options) Parse() (gate.Options, error) {
	m, err := gate.ParseMargin(g.Margin)
	if err != nil {
		return gate.Options{}, fmt.Errorf("--margin: %w", err)
	}
	if _, err := (&results.Policy{}).Metric(g.Metric); err != nil {
		return gate.Options{}, fmt.Errorf("--metric: %w", err)
	}
	if !(g.Alpha > 0 && g.Alpha < 1) {
		return gate.Options{}, fmt.Errorf("--alpha %v: must be in (0, 1), e.g. 0.05", g.Alpha)
	}
	if g.Format != "" && !slices.Contains(gate.Formats, g.Format) {
		return gate.Options{}, fmt.Errorf("%s %q: want one of %s", g.FormatFlag, g.Format, strings.Join(gate.Formats, ", "))
	}
	o := gate.Options{Metric: g.Metric, Margin: m, Alpha: g.Alpha, Force: g.Force}
	if g.Sequential {
		if g.Looks < 1 {
			return gate.Options{}, fmt.Errorf("--looks %d: want at least 1", g.Looks)
		}
		o.Looks = g.Looks
	}
	if err := o.Check(); err != nil {
		return gate.Options{}, err
	}
	return o, nil
}

// Rules are the exit rules of --require-conclusive and --require-same.
func (g *Options) Rules() gate.Rules {
	return gate.Rules{RequireConclusive: g.RequireConclusive, RequireSame: g.RequireSame}
}

// CmdOptions are the arguments and flags of bench gate.
type CmdOptions struct {
	F *cmdutil.Factory
	Options
	BaselinePath, CurrentPath string // the two results files
}

// NewCmdGate returns bench gate. runF, when not nil, receives the options
// in place of comparing the files (for tests).
func NewCmdGate(f *cmdutil.Factory, runF func(*CmdOptions) error) *cobra.Command {
	o := &CmdOptions{F: f}
	cmd := &cobra.Command{
		Use:   "gate BASELINE.json CURRENT.json",
		Short: "Exit non-zero when a policy regressed between two results files",
		Long: `gate compares, for every policy of BASELINE, the per-replication final values
of a metric (regret by default; lower is better) in CURRENT with those in
BASELINE, and prints a table: baseline and current mean ± standard error,
delta in % of the baseline mean, its (1-alpha) confidence interval, the
Holm-adjusted p-value and a verdict.

When both files are the same experiment with the same seed and replication
indices, replication r of both faced the same rewards (common random
numbers) and the test is a paired t-test on the per-replication
differences; otherwise it is Welch's unpaired t-test, and the table says so.

Verdicts (m = margin x |baseline mean|, delta = current - baseline mean):
  worse         delta > m, significant at alpha after Holm's correction over
                every policy compared: a regression
  better        delta < -m, likewise
  same          the CI of delta lies within [-m, m]
  inconclusive  none of these: more replications needed

` + exitCodes + `

  bench gate base.json new.json
--format markdown prints the verdict table for a pull-request comment;
--format json prints one JSON object: the settings, the test (paired or
not, and why), one row per policy (label, verdict, baseline and current
mean, se and n, delta, ci_lo, ci_hi, margin_abs, p, p_worse, p_better,
note; numbers that do not apply are omitted) and the labels in
"regressions" and "failures". The exit code is the same in every format.

  bench gate base.json new.json
  bench gate base.json new.json --metric regret_under --margin 10% --alpha 0.05
  bench gate base.json new.json --format markdown > comment.md`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.BaselinePath, o.CurrentPath = args[0], args[1]
			if runF != nil {
				return runF(o)
			}
			return inputOnError(gateRun(o))
		},
	}
	AddFlags(cmd.Flags(), &o.Options)
	cmd.Flags().StringVar(&o.Format, "format", "table", "verdict format: table, markdown (for a pull-request comment) or json")
	o.FormatFlag = "--format"
	return cmd
}

// inputOnError gives any error without an exit code of its own the code 2:
// for gate, exit 1 means a regression and must never come from a bug or a
// bad file.
func inputOnError(err error) error {
	if _, coded := exitcode.Of(err); err == nil || coded {
		return err
	}
	return exitcode.With(exitcode.Input, err)
}

// gateRun compares the two files o names.
func gateRun(o *CmdOptions) error {
	opt, err := o.Parse()
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	base, cur, err := gate.ReadPaths(o.BaselinePath, o.CurrentPath)
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	// As a run does: a plugin of the files' policies that, on this
	// machine's search path, shadows another of its name (a shipped one).
	plugins, seen := o.F.Plugins(), map[string]bool{}
	for _, file := range []*results.File{base, cur} {
		for _, p := range file.Policies {
			if !seen[p.Plugin] {
				seen[p.Plugin] = true
				run.WarnShadowed(o.F.Stderr, plugins, p.Plugin)
			}
		}
	}
	return cmdutil.Flagged(run.GateExit(gate.Files(o.F.Stdout, base, cur, o.BaselinePath, o.CurrentPath, opt, o.Rules(), o.Format)))
}
