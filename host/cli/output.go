package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// outputOptions are the flags that choose how a run's results are shown:
// the stdout format, extra regret columns and figures.
type outputOptions struct {
	format      string // --format: table, markdown, csv or json
	at          string // --at: comma-separated rounds
	plotDir     string // --plot: write figures here
	plotFormats string // --plot-format: png,svg
	logX        bool   // --log-x: regret and separated figures on a log t axis
}

func addOutputFlags(fs *pflag.FlagSet, o *outputOptions) {
	fs.StringVar(&o.format, "format", string(report.FormatTable), "stdout format: table, markdown (for pull-request comments), csv (long form: scenario,policy,metric,t,mean,se) or json (the results file)")
	fs.StringVar(&o.at, "at", "", "add regret columns at these rounds, e.g. 1000,5000,20000 (added to the checkpoints of a run; with csv, keep only these rounds)")
	fs.StringVar(&o.plotDir, "plot", "", "write figures (regret, underestimation, separated regret, final-regret distribution, diagnostics) into this directory")
	fs.StringVar(&o.plotFormats, "plot-format", strings.Join(plot.DefaultFormats, ","), "figure formats for --plot: png, svg, pdf (comma-separated)")
	fs.BoolVar(&o.logX, "log-x", false, "with --plot, draw the regret and separated figures on a log t axis")
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

// check validates the flags before a run, so a typo costs no run, and adds
// the --at rounds to the scenario's checkpoints: asking for the regret at
// round 1000 records it there rather than failing because 1000 was not a
// default checkpoint. Rounds beyond the horizon are an error.
func (o *outputOptions) check(sc *scenario.Scenario) error {
	ro, _, err := o.parse()
	if err != nil {
		return err
	}
	for _, t := range ro.At {
		if t >= 1 && t <= sc.Horizon && !slices.Contains(sc.Checkpoints, t) {
			sc.Checkpoints = append(sc.Checkpoints, t)
		}
	}
	slices.Sort(sc.Checkpoints)
	if err := report.CheckAt(sc.Checkpoints, ro.At); err != nil {
		return withCode(ExitInput, fmt.Errorf("--at: %w", err))
	}
	return nil
}

// render prints f to stdout in the chosen format and, with --plot, writes
// the figures. With the table format the figures' paths follow the
// tables; other formats print only the data, so stdout stays machine
// readable.
//
// cmp, when not nil, is the comparison section: it follows the tables
// (table, markdown) or the long-form CSV after an empty line (csv, with
// its own header, compare.CSVHeader); in json it is the results file's
// "comparison" member, which f already holds.
func (o *outputOptions) render(stdout io.Writer, f *results.File, cmp *compare.Scenario) error {
	ropts, formats, err := o.parse()
	if err != nil {
		return err
	}
	if err := report.Write(stdout, f, ropts); err != nil {
		if len(ropts.At) > 0 {
			return withCode(ExitInput, fmt.Errorf("--at: %w", err))
		}
		return err
	}
	if cmp != nil && ropts.Format != report.FormatJSON {
		if ropts.Format == report.FormatCSV {
			fmt.Fprintln(stdout)
		}
		if err := compare.Write(stdout, cmp, ropts.Format); err != nil {
			return err
		}
	}
	if o.plotDir == "" {
		return nil
	}
	paths, err := plot.WriteWith(f, o.plotDir, plot.Options{LogX: o.logX}, formats...)
	if ropts.Format == report.FormatTable && len(paths) > 0 {
		fmt.Fprintf(stdout, "\nFigures:\n")
		for _, p := range paths {
			fmt.Fprintf(stdout, "  %s\n", termsafe.String(p))
		}
	}
	if err != nil {
		return &figuresError{fmt.Errorf("--plot %s: %w", o.plotDir, err)}
	}
	return nil
}

// figuresError is render's error when only figures could not be written:
// the output was printed and every other figure written, so the run goes
// on to write its results.
type figuresError struct{ err error }

func (e *figuresError) Error() string { return e.err.Error() }
func (e *figuresError) Unwrap() error { return e.err }
