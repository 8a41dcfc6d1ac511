// Package report is the bench report command: it writes results files
// as one self-contained HTML page (host/htmlreport).
package report

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/results"
)

// Options are the arguments and flags of bench report.
type Options struct {
	F      *cmdutil.Factory
	Inputs []string // the results files
	Out    string   // --out: the HTML file
	Title  string   // --title
	LogX   bool     // --log-x
	LogY   bool     // --log-y
}

// NewCmdReport returns bench report. runF, when not nil, receives the
// options in place of writing the page (for tests).
func NewCmdReport(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "report RESULTS.json... --out FILE.html",
		Short: "Write results files as one self-contained HTML page",
		Long: `report writes one HTML page for the given results files, one section per
file in the order given: the scenario (arms, means, noise, horizon,
replications, seed), the regret, separated-regret and diagnostics tables,
every figure (as bench plot draws them) inline as SVG, and what is needed to
reproduce the run: bench version, each plugin's version and SHA-256, the
command line, the host and the date (recorded by runs that wrote --out).

The page is one file that works offline: it loads nothing (no script, no
external style sheet, font or image), reads well on a laptop screen and
prints cleanly. bench paper writes the same page for every experiment as
DIR/index.html.

The page is valid whatever the files hold: a character no HTML or XML
document may hold (a control, U+FFFE, invalid UTF-8) shows as an escape
such as \x1b. A figure that cannot be drawn is named in its place and on
stderr; the rest of the page is written, and report exits 1.`,
		Example: `  bench --scenario failure_mode --out fm.json
  bench report fm.json --out fm.html
  bench report two_arm.json three_arm.json --out synthetic.html --title "Synthetic instances"`,
		Args: cobra.MinimumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			if o.Out == "" {
				return exitcode.With(exitcode.Input, fmt.Errorf("report: --out FILE.html is required"))
			}
			if runF != nil {
				return runF(o)
			}
			return reportRun(o)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", "the HTML file to write")
	cmd.Flags().StringVar(&o.Title, "title", "", "the page's title (default: from the scenarios)")
	cmd.Flags().BoolVar(&o.LogX, "log-x", false, "draw the regret and separated figures on a log t axis")
	cmd.Flags().BoolVar(&o.LogY, "log-y", false, "draw the regret and separated figures on a log y axis (the regret figure gets one anyway past two decades of final values)")
	_ = cmd.MarkFlagFilename("out", "html")
	return cmd
}

// reportRun writes the page of the results files o names.
func reportRun(o *Options) error {
	inputs := [][2]string{{"the --config file", o.F.Config}}
	for _, in := range o.Inputs {
		inputs = append(inputs, [2]string{"a results file of the report", in})
	}
	if err := cmdutil.CheckOut("--out", o.Out, inputs); err != nil {
		return err // before reading gigabytes of results
	}
	files, err := results.ReadFiles(o.Inputs)
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	err = htmlreport.WriteFile(o.Out, files, htmlreport.Options{Title: o.Title, LogX: o.LogX, LogY: o.LogY})
	var partial *htmlreport.PartialError
	if errors.As(err, &partial) {
		// Written, less what could not be drawn: the page says so in
		// its place, and so does the exit code.
		fmt.Fprintln(o.F.Stdout, o.Out)
		return exitcode.With(exitcode.Failure, fmt.Errorf("--out %s was written, but %w", o.Out, err))
	}
	if err != nil {
		return exitcode.With(exitcode.Input, fmt.Errorf("--out %s: %w", o.Out, err))
	}
	fmt.Fprintln(o.F.Stdout, o.Out)
	return nil
}
