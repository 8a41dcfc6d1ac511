// Package plot is the bench plot command: it draws the figures of a
// results file (host/plot) into a directory.
package plot

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// Options are the argument and flags of bench plot.
type Options struct {
	F       *cmdutil.Factory
	Results string // the results file
	Out     string // --out: the directory
	Formats string // --format, as given
	LogX    bool   // --log-x
	LogY    bool   // --log-y
}

// NewCmdPlot returns bench plot. runF, when not nil, receives the options
// in place of drawing (for tests).
func NewCmdPlot(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json --out DIR",
		Short: "Draw the figures of a results file (PNG, SVG or PDF)",
		Long: `plot draws one figure per metric of a results file into DIR:

  NAME_regret               cumulative regret vs t, mean and a 1-SE band
  NAME_underestimation      cumulative underestimation, log-log axes
  NAME_separated            regret_under (dashed), regret_not_under (solid)
  NAME_regret_distribution  final regret per replication, a box per policy
                            (log axis when heavy-tailed)
  NAME_diag_DIAG            each plugin diagnostic (e.g. kkt_gap) vs log t

NAME is the scenario's name. A policy keeps its style (a colour-blind-safe
colour by order of appearance, or its own color: from the scenario, and past
eight policies a dash pattern and glyph) in every figure.
--log-x draws the regret and separated figures on a log t axis too, --log-y
on a log y axis (the regret figure has one anyway when its final values span
more than two decades). Breakpoints of changes: are dotted vertical lines. Log
axes leave out points that are zero (cumulative underestimation starts at
its first positive checkpoint); a series that is 0 throughout is named in a
line under the figure instead of drawn. The written paths are printed, one
a line. See docs/figures.md.`,
		Example: `  bench --scenario failure_mode --out fm.json
  bench plot fm.json --out figures/
  bench plot fm.json --out docs/ --format png`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Results = args[0]
			if o.Out == "" {
				return exitcode.With(exitcode.Input, fmt.Errorf("plot: --out DIR is required"))
			}
			if runF != nil {
				return runF(o)
			}
			return plotRun(o)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", "directory for the figures (created if missing)")
	cmd.Flags().StringVar(&o.Formats, "format", strings.Join(plot.DefaultFormats, ","), "figure formats: png, svg, pdf (comma-separated)")
	cmd.Flags().BoolVar(&o.LogX, "log-x", false, "draw the regret and separated figures on a log t axis")
	cmd.Flags().BoolVar(&o.LogY, "log-y", false, "draw the regret and separated figures on a log y axis (the regret figure gets one anyway past two decades of final values)")
	_ = cmd.MarkFlagDirname("out")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(plot.Formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// plotRun draws the figures of the results file o names.
func plotRun(o *Options) error {
	fs, err := plot.ParseFormats(o.Formats)
	if err != nil {
		return exitcode.With(exitcode.Input, fmt.Errorf("--format: %w", err))
	}
	if err := cmdutil.CheckOutDir("--out", o.Out, true); err != nil {
		return err
	}
	f, err := results.ReadFile(o.Results)
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	paths, err := plot.WriteWith(f, o.Out, plot.Options{LogX: o.LogX, LogY: o.LogY}, fs...)
	for _, p := range paths {
		fmt.Fprintln(o.F.Stdout, termsafe.String(p))
	}
	if err != nil {
		return fmt.Errorf("plot %s: %w", o.Results, err)
	}
	return nil
}
