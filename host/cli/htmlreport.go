package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/results"
)

// reportOptions are the arguments and flags of bench report.
type reportOptions struct {
	f      *factory
	inputs []string // the results files
	out    string   // --out: the HTML file
	title  string   // --title
	logX   bool     // --log-x
	logY   bool     // --log-y
}

// newCmdReport returns bench report. runF, when not nil, receives the
// options in place of writing the page (for tests).
func newCmdReport(f *factory, runF func(*reportOptions) error) *cobra.Command {
	o := &reportOptions{f: f}
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
			o.inputs = args
			if o.out == "" {
				return withCode(ExitInput, fmt.Errorf("report: --out FILE.html is required"))
			}
			if runF != nil {
				return runF(o)
			}
			return reportRun(o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "the HTML file to write")
	cmd.Flags().StringVar(&o.title, "title", "", "the page's title (default: from the scenarios)")
	cmd.Flags().BoolVar(&o.logX, "log-x", false, "draw the regret and separated figures on a log t axis")
	cmd.Flags().BoolVar(&o.logY, "log-y", false, "draw the regret and separated figures on a log y axis (the regret figure gets one anyway past two decades of final values)")
	_ = cmd.MarkFlagFilename("out", "html")
	return cmd
}

// reportRun writes the page of the results files o names.
func reportRun(o *reportOptions) error {
	inputs := [][2]string{{"the --config file", o.f.config}}
	for _, in := range o.inputs {
		inputs = append(inputs, [2]string{"a results file of the report", in})
	}
	if err := checkOut("--out", o.out, inputs); err != nil {
		return err // before reading gigabytes of results
	}
	files, err := results.ReadFiles(o.inputs)
	if err != nil {
		return withCode(ExitInput, err)
	}
	err = htmlreport.WriteFile(o.out, files, htmlreport.Options{Title: o.title, LogX: o.logX, LogY: o.logY})
	var partial *htmlreport.PartialError
	if errors.As(err, &partial) {
		// Written, less what could not be drawn: the page says so in
		// its place, and so does the exit code.
		fmt.Fprintln(o.f.stdout, o.out)
		return withCode(ExitFailure, fmt.Errorf("--out %s was written, but %w", o.out, err))
	}
	if err != nil {
		return withCode(ExitInput, fmt.Errorf("--out %s: %w", o.out, err))
	}
	fmt.Fprintln(o.f.stdout, o.out)
	return nil
}
