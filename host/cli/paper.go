package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// paperRuns are the scenarios that reproduce every experiment of the paper,
// heaviest first so the long jobs start early. The remaxgrad_* sweeps share
// their base instance's seed, so their ReMax, TS and KL-UCB rows are the
// two_arm, three_arm and ten_arm results (written as such below).
var paperRuns = []struct {
	scenario string
	base     string // the main-text scenario whose policies it contains
}{
	{"remaxgrad_ten_arm", "ten_arm"},
	{"remaxgrad_three_arm", "three_arm"},
	{"failure_mode", ""},
	{"remaxgrad_two_arm", "two_arm"},
	{"obd", ""},
	{"movielens", ""},
}

func newPaperCmd(ro *runOptions) *cobra.Command {
	var dir string
	var runs int
	cmd := &cobra.Command{
		Use:   "paper",
		Short: "Reproduce every experiment of the ReMax paper at full scale",
		Long: `paper runs every experiment of the paper: the two-, three- and ten-arm
instances with ReMax, TS, KL-UCB and ReMaxGrad M=2,3,4; the failure mode with
variance inflation c2=1..4; OBD; MovieLens. All policies of all scenarios share
one pool of --jobs slots (one per core by default), so both cores stay busy.
It writes one results file and one text report per scenario into --out, plus
two_arm.json, three_arm.json and ten_arm.json (the ReMax, TS and KL-UCB rows of
the remaxgrad_* sweeps, which use the same seeds), and prints a summary table.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return paperRun(cmd.Context(), ro, dir, runs, cmd.Flags().Changed("runs"))
		},
	}
	cmd.Flags().StringVarP(&dir, "out", "o", "paper-results", "directory for the results files and reports")
	cmd.Flags().IntVar(&runs, "runs", 0, "override every scenario's replications (for a quick look; the paper's are 1000 and 100)")
	cmd.Flags().IntVar(&ro.jobs, "jobs", 0, "policies run at once across all scenarios (0: one per core)")
	cmd.Flags().DurationVar(&ro.stepTimeout, "step-timeout", 5*time.Minute, "fail a policy whose plugin does not answer a round within this time")
	cmd.Flags().DurationVar(&ro.startTimeout, "start-timeout", 10*time.Second, "fail a plugin that does not complete its handshake within this time")
	return cmd
}

func paperRun(ctx context.Context, ro *runOptions, dir string, runs int, runsSet bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return withCode(ExitInput, fmt.Errorf("--out %s: %w", dir, err))
	}
	jobs := ro.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	slots := make(chan struct{}, jobs)
	start := time.Now()
	files := make([]*results.File, len(paperRuns))
	errs := make([]error, len(paperRuns))
	var wg sync.WaitGroup
	for i, pr := range paperRuns {
		sc, err := scenario.Named(pr.scenario)
		if err != nil {
			return err
		}
		if runsSet {
			sc.Runs = runs
			if err := sc.Validate(); err != nil {
				return withCode(ExitInput, fmt.Errorf("--runs %d: %w", runs, err))
			}
		}
		wg.Add(1)
		go func(i int, sc *scenario.Scenario) {
			defer wg.Done()
			files[i], errs[i] = engine.Run(ctx, sc, engine.Options{Launch: ro.launcher(), Slots: slots, StepTimeout: ro.stepTimeout})
		}(i, sc)
	}
	wg.Wait()
	elapsed := time.Since(start)

	var all []*results.File
	for i, pr := range paperRuns {
		f := files[i]
		if f == nil {
			continue
		}
		all = append(all, f)
		if err := writeReport(dir, pr.scenario, f); err != nil {
			return err
		}
		if pr.base != "" {
			sub := subset(f, pr.base, "ReMax", "TS", "KL-UCB")
			if err := writeReport(dir, pr.base, sub); err != nil {
				return err
			}
		}
	}
	if err := paperSummary(ro.stdout, all); err != nil {
		return err
	}
	fmt.Fprintf(ro.stdout, "\n%d scenarios in %.1f s wall; results in %s/\n", len(all), elapsed.Seconds(), dir)
	var firstErr error
	for _, err := range errs {
		if err != nil {
			firstErr = errors.Join(firstErr, err)
		}
	}
	return firstErr
}

// subset returns the policies of f with the given labels, as the results
// of scenario name.
func subset(f *results.File, name string, labels ...string) *results.File {
	g := *f
	g.Scenario.Name = name
	g.Scenario.Description = ""
	g.Policies = nil
	for _, l := range labels {
		for _, p := range f.Policies {
			if p.Label == l {
				g.Policies = append(g.Policies, p)
			}
		}
	}
	return &g
}

func writeReport(dir, name string, f *results.File) error {
	if err := f.WriteFile(filepath.Join(dir, name+".json")); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.Tables(&b, f); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".txt"), b.Bytes(), 0o644)
}

func paperSummary(w interface{ Write([]byte) (int, error) }, files []*results.File) error {
	fmt.Fprintln(w, "Final values at T (mean ± standard error over replications)")
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}}),
	)
	t.Header("scenario", "policy", "regret", "underestimation", "regret_under", "regret_not_under", "seconds")
	for _, f := range files {
		for _, p := range f.Policies {
			if p.Status != results.StatusOK {
				if err := t.Append(f.Scenario.Name, p.Label, "FAILED", "", "", "", ""); err != nil {
					return err
				}
				continue
			}
			cell := func(s results.Series) string {
				n := len(s.Mean) - 1
				return fmt.Sprintf("%.2f ± %.2f", s.Mean[n], s.SE[n])
			}
			if err := t.Append(f.Scenario.Name, p.Label, cell(p.Regret), cell(p.Under), cell(p.RegretUnder), cell(p.RegretNot), fmt.Sprintf("%.0f", p.Seconds)); err != nil {
				return err
			}
		}
	}
	return t.Render()
}
