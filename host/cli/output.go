package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/report"
)

// outputOptions are the flags that choose how a run's results are shown:
// the stdout format, extra regret columns and figures.
type outputOptions struct {
	format      string // --format: table, markdown, csv, json or latex
	at          string // --at: comma-separated rounds
	plotDir     string // --plot: write figures here
	plotFormats string // --plot-format: png,svg
	logX        bool   // --log-x: regret and separated figures on a log t axis
	logY        bool   // --log-y: and on a log y axis
}

func addOutputFlags(fs *pflag.FlagSet, o *outputOptions) {
	fs.StringVar(&o.format, "format", string(report.FormatTable), "stdout format: table, markdown (for pull-request comments), csv (long form: scenario,policy,metric,t,mean,se), json (the results file) or latex (booktabs tables to \\input into a paper)")
	fs.StringVar(&o.at, "at", "", "add regret columns at these rounds, e.g. 1000,5000,20000 (added to the checkpoints of a run; with csv, keep only these rounds)")
	fs.StringVar(&o.plotDir, "plot", "", "write figures (regret, underestimation, separated regret, final-regret distribution, diagnostics) into this directory")
	fs.StringVar(&o.plotFormats, "plot-format", strings.Join(plot.DefaultFormats, ","), "figure formats for --plot: png, svg, pdf (comma-separated)")
	fs.BoolVar(&o.logX, "log-x", false, "with --plot, draw the regret and separated figures on a log t axis")
	fs.BoolVar(&o.logY, "log-y", false, "with --plot, draw the regret and separated figures on a log y axis (the regret figure gets one anyway past two decades of final values)")
}

// parse checks the flags and returns the report options and figure
// formats. Errors are input errors (exit 2).
func (o *outputOptions) parse() (report.Options, []string, error) {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return report.Options{}, nil, withCode(ExitInput, fmt.Errorf("--format: %w", err))
	}
	at, err := report.ParseRounds(o.at)
	if err != nil {
		return report.Options{}, nil, withCode(ExitInput, fmt.Errorf("--at %s: %w", o.at, err))
	}
	if len(at) > 0 && format == report.FormatJSON {
		return report.Options{}, nil, withCode(ExitInput, fmt.Errorf("--at does not apply to --format json, which holds every checkpoint"))
	}
	var formats []string
	if o.plotDir != "" {
		if formats, err = plot.ParseFormats(o.plotFormats); err != nil {
			return report.Options{}, nil, withCode(ExitInput, fmt.Errorf("--plot-format: %w", err))
		}
	}
	return report.Options{Format: format, At: at}, formats, nil
}
