package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/run"
)

// paperOptions are the flags of bench paper.
type paperOptions struct {
	f     *cmdutil.Factory
	flags *pflag.FlagSet // the command's flags, to tell which were given

	policyRunOptions
	dir         string           // --out: the directory written
	plotFormats string           // --plot-format, as given
	formats     []string         // --plot-format, parsed
	metric      string           // --metric of the comparison section (with --with)
	alpha       float64          // --alpha of the comparison section
	logX        bool             // --log-x
	logY        bool             // --log-y
	req         run.PaperRequest // the flags as checkFlags maps them
}

// checkFlags validates the flags of bench paper before anything runs and
// maps them to o.req.
func (o *paperOptions) checkFlags(ctx context.Context) error {
	opts := o.options(o.flags)
	if err := cmdutil.Flagged(opts.Check()); err != nil {
		return err
	}
	sb, err := o.sandbox.Config()
	if err != nil {
		return err
	}
	with, err := o.added()
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOutDir("--out", o.dir, true); err != nil {
		return err
	}
	if o.formats, err = plot.ParseFormats(o.plotFormats); err != nil {
		return withCode(ExitInput, fmt.Errorf("--plot-format: %w", err))
	}
	o.req = run.PaperRequest{Host: o.host(ctx, o.f, sb), Dir: o.dir, Formats: o.formats, LogX: o.logX, LogY: o.logY,
		Compare: compare.Options{Metric: o.metric, Alpha: o.alpha}, Runs: opts.Overrides.Runs, Horizon: opts.Overrides.Horizon,
		Jobs: o.jobs, StepTimeout: o.stepTimeout, StartTimeout: o.startTimeout, With: with}
	return nil
}

// newCmdPaper returns bench paper. runF, when not nil, receives the
// checked options in place of running the experiments (for tests).
func newCmdPaper(f *cmdutil.Factory, runF func(*paperOptions) error) *cobra.Command {
	o := &paperOptions{f: f}
	cmd := &cobra.Command{
		Use:   "paper",
		Short: "Reproduce every experiment of the ReMax paper at full scale",
		Long: `paper runs every experiment of the paper: the two-, three- and ten-arm
instances with ReMax, TS, KL-UCB and ReMaxGrad M=2,3,4; the failure mode with
variance inflation c2=1..4; OBD; MovieLens. All policies of all scenarios share
one pool of --jobs slots (one per core by default), so both cores stay busy.
It writes one results file, one text report, one LaTeX table (SCENARIO.tex,
as --format latex writes it) and the figures (as bench plot draws them:
SCENARIO_regret.png and so on) per scenario into --out, plus
two_arm, three_arm and ten_arm files (the ReMax, TS and KL-UCB rows of the
remaxgrad_* sweeps, which use the same seeds), and index.html, one
self-contained page of every experiment (as bench report writes) with the
summary table, and prints the summary table.

The policies that ran in all six instances (two_arm, three_arm, ten_arm,
failure_mode, obd, movielens; the sweeps repeat the first three) are ranked
by mean final --metric in each: the Friedman test and the Nemenyi critical
difference at --alpha (Demšar 2006) are printed, shown in index.html and
drawn as mean_ranks.png/.svg.

--with SPEC (repeatable; see 'bench --help') adds a policy to every
experiment, after the shipped ones, whose rows do not change (common random
numbers). Each experiment's results and report then hold a comparison
section (the added policies' rank and paired differences from each shipped
policy, Holm-adjusted over that table's comparisons), stdout prints them
and the wins, ties and losses across the nine experiments, --out gets
comparison.txt, .md, .csv, .json and .tex, and index.html shows it. Each pair is
tested once: a remaxgrad_* sweep compares the added policies with its
ReMaxGrad rows, and its ReMax, TS and KL-UCB rows are compared in the
two_arm, three_arm or ten_arm experiment.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			if err := o.checkFlags(cmd.Context()); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return cmdutil.Flagged(run.Paper(cmd.Context(), o.req))
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.dir, "out", "o", "paper-results", "directory for the results files, reports and figures")
	fs.StringVar(&o.plotFormats, "plot-format", strings.Join(plot.DefaultFormats, ","), "figure formats: png, svg, pdf (comma-separated)")
	fs.BoolVar(&o.logX, "log-x", false, "draw the regret and separated figures on a log t axis")
	fs.BoolVar(&o.logY, "log-y", false, "draw the regret and separated figures on a log y axis (the regret figure gets one anyway past two decades of final values)")
	addPolicyRunFlags(fs, &o.policyRunOptions, policyRunHelp{
		runs:    "override every scenario's replications (for a quick look; the paper's are 1000 and 100)",
		horizon: "override every scenario's horizon (for a quick look)",
		jobs:    "policies run at once across all scenarios (0: one per core)",
		with:    "add a policy to every experiment (repeatable): " + strings.TrimPrefix(withHelp, "add a policy to the scenario (repeatable), after its own: "),
	})
	fs.StringVar(&o.metric, "metric", compare.DefaultOptions.Metric, "metric of the comparison section (with --with): "+metric.List())
	fs.Float64Var(&o.alpha, "alpha", compare.DefaultOptions.Alpha, "family-wise error rate of the comparison's Holm-adjusted tests; its CIs are at 1-alpha")
	return cmd
}
