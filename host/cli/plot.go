package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

func newPlotCmd(ro *runOptions) *cobra.Command {
	var out, formats string
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json --out DIR",
		Short: "Draw the figures of a results file (PNG, SVG or PDF)",
		Long: `plot draws one figure per metric of a results file into DIR:

  NAME_regret            cumulative regret vs t, mean and a 1-SE band per policy
  NAME_underestimation   cumulative underestimation, log-log axes
  NAME_separated         regret_under (dashed) and regret_not_under (solid)
  NAME_diag_DIAG         each plugin diagnostic (e.g. kkt_gap) vs log t

NAME is the scenario's name. A policy keeps its colour in every figure.
Log axes leave out points that are zero (cumulative underestimation starts
at its first positive checkpoint). The written paths are printed, one a line.`,
		Example: `  bench --scenario failure_mode --out fm.json
  bench plot fm.json --out figures/
  bench plot fm.json --out docs/ --format png`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return withCode(ExitInput, fmt.Errorf("plot: --out DIR is required"))
			}
			fs, err := plot.ParseFormats(formats)
			if err != nil {
				return withCode(ExitInput, fmt.Errorf("--format: %w", err))
			}
			f, err := results.ReadFile(args[0])
			if err != nil {
				return withCode(ExitInput, err)
			}
			paths, err := plot.Write(f, out, fs...)
			for _, p := range paths {
				fmt.Fprintln(ro.stdout, p)
			}
			if err != nil {
				return fmt.Errorf("plot %s: %w", args[0], err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory for the figures (created if missing)")
	cmd.Flags().StringVar(&formats, "format", strings.Join(plot.DefaultFormats, ","), "figure formats: png, svg, pdf (comma-separated)")
	_ = cmd.MarkFlagDirname("out")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(plot.Formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
