package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
)

const gateExitCodes = `Exit codes:
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

// gateOptions are the gate flags, shared by bench gate and the one-call
// form bench --scenario X --baseline BASE.json.
type gateOptions struct {
	metric            string
	margin            string
	alpha             float64
	force             bool
	requireConclusive bool
	requireSame       bool
	sequential        bool // --sequential: a sequential gate
	looks             int  // --looks K: its looks

	format     string // the verdict's format: table, markdown or json
	formatFlag string // the flag that sets it: --format (bench gate) or --gate-format (runs)

	baseline     string // run flags only
	saveBaseline string
}

func addGateFlags(fs *pflag.FlagSet, g *gateOptions) {
	d := gate.DefaultOptions
	fs.StringVar(&g.metric, "metric", d.Metric, "metric to gate on (and of the comparison section, with --with or --compare-to): "+metric.List())
	fs.StringVar(&g.margin, "margin", "5%", "tolerated worsening, relative to the baseline mean: 5% or 0.05")
	fs.Float64Var(&g.alpha, "alpha", d.Alpha, "family-wise error rate of the Holm-corrected tests (gate and comparison section); the CI level is 1-alpha")
	fs.BoolVar(&g.force, "force", false, "compare different experiments anyway (unpaired)")
	fs.BoolVar(&g.requireConclusive, "require-conclusive", false, "exit 4 when a comparison is inconclusive")
	fs.BoolVar(&g.sequential, "sequential", false, "sequential gate: analyse the replications in --looks cumulative groups and decide each policy at the first look that can (paired only; error rate held over the looks by O'Brien-Fleming-type alpha spending). With --baseline, the run itself stops each policy there; with bench gate, the looks are replayed on the two files")
	fs.IntVar(&g.looks, "looks", 5, "with --sequential: the number of looks (groups of replications)")
	fs.BoolVar(&g.requireSame, "require-same", false, "exit 1 unless every policy's verdict is same: any change, better or worse, fails (with --margin 0, for a project gating its own plugins under common random numbers)")
}

// addGateRunFlags adds the one-call form's flags to a run's flags.
func addGateRunFlags(fs *pflag.FlagSet, g *gateOptions) {
	fs.StringVar(&g.baseline, "baseline", "", "after the run, gate its results against this baseline results file (exit codes as bench gate)")
	fs.StringVar(&g.saveBaseline, "save-baseline", "", "write the results file here as a baseline, only when the call succeeds (every policy ok, no regression)")
	fs.StringVar(&g.format, "gate-format", "", "format of the --baseline verdict: table, markdown or json (default: markdown with --format markdown, else table)")
	g.formatFlag = "--gate-format"
	addGateFlags(fs, g)
}

func (g *gateOptions) options() (gate.Options, error) {
	m, err := gate.ParseMargin(g.margin)
	if err != nil {
		return gate.Options{}, fmt.Errorf("--margin: %w", err)
	}
	if _, err := (&results.Policy{}).Metric(g.metric); err != nil {
		return gate.Options{}, fmt.Errorf("--metric: %w", err)
	}
	if !(g.alpha > 0 && g.alpha < 1) {
		return gate.Options{}, fmt.Errorf("--alpha %v: must be in (0, 1), e.g. 0.05", g.alpha)
	}
	if g.format != "" && !slices.Contains(gate.Formats, g.format) {
		return gate.Options{}, fmt.Errorf("%s %q: want one of %s", g.formatFlag, g.format, strings.Join(gate.Formats, ", "))
	}
	o := gate.Options{Metric: g.metric, Margin: m, Alpha: g.alpha, Force: g.force}
	if g.sequential {
		if g.looks < 1 {
			return gate.Options{}, fmt.Errorf("--looks %d: want at least 1", g.looks)
		}
		o.Looks = g.looks
	}
	if err := o.Check(); err != nil {
		return gate.Options{}, err
	}
	return o, nil
}

// rules are the exit rules of --require-conclusive and --require-same.
func (g *gateOptions) rules() gate.Rules {
	return gate.Rules{RequireConclusive: g.requireConclusive, RequireSame: g.requireSame}
}

// gateCmdOptions are the arguments and flags of bench gate.
type gateCmdOptions struct {
	f *factory
	gateOptions
	baselinePath, currentPath string // the two results files
}

// newCmdGate returns bench gate. runF, when not nil, receives the options
// in place of comparing the files (for tests).
func newCmdGate(f *factory, runF func(*gateCmdOptions) error) *cobra.Command {
	o := &gateCmdOptions{f: f}
	g := &o.gateOptions
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

` + gateExitCodes + `

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
			o.baselinePath, o.currentPath = args[0], args[1]
			if runF != nil {
				return runF(o)
			}
			return inputOnError(runGate(f, g, o.baselinePath, o.currentPath))
		},
	}
	addGateFlags(cmd.Flags(), g)
	cmd.Flags().StringVar(&g.format, "format", "table", "verdict format: table, markdown (for a pull-request comment) or json")
	g.formatFlag = "--format"
	return cmd
}

// inputOnError gives any error without an exit code of its own the code 2:
// for gate, exit 1 means a regression and must never come from a bug or a
// bad file.
func inputOnError(err error) error {
	if _, coded := exitcode.Of(err); err == nil || coded {
		return err
	}
	return withCode(ExitInput, err)
}

func runGate(f *factory, g *gateOptions, basePath, curPath string) error {
	opt, err := g.options()
	if err != nil {
		return withCode(ExitInput, err)
	}
	base, cur, err := gate.ReadPaths(basePath, curPath)
	if err != nil {
		return withCode(ExitInput, err)
	}
	// As a run does: a plugin of the files' policies that, on this
	// machine's search path, shadows another of its name (a shipped one).
	plugins, seen := f.plugins(), map[string]bool{}
	for _, file := range []*results.File{base, cur} {
		for _, p := range file.Policies {
			if !seen[p.Plugin] {
				seen[p.Plugin] = true
				run.WarnShadowed(f.stderr, plugins, p.Plugin)
			}
		}
	}
	return run.GateExit(gate.Files(f.stdout, base, cur, basePath, curPath, opt, g.rules(), g.format))
}
