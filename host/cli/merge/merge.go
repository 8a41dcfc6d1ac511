// Package merge is the bench merge command: it merges the results files
// of the shards of one run (bench --shard I/N) into the file the
// unsharded run would have written (host/shard.Merge).
package merge

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/shard"
)

// Options are the arguments and flags of bench merge.
type Options struct {
	F      *cmdutil.Factory
	Inputs []string // the shards' results files
	Out    string   // --out
}

// NewCmdMerge returns bench merge. runF, when not nil, receives the
// options in place of merging (for tests).
func NewCmdMerge(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "merge SHARD.json... --out ALL.json",
		Short: "Merge the results files of the shards of one run exactly",
		Long: `merge combines the results files written by 'bench --shard I/N --out part-I.json'
for I = 0..N-1 into the file the unsharded run would have written (timings
aside: seconds are summed). It refuses, with exit code 2 and a message naming
the file and the field, shards of different scenarios, seeds, noise_known,
bench builds, policies, parameters or plugin executables (SHA-256), shards
whose checkpoints or diagnostics differ, a missing or duplicate shard,
replications out of range or in two shards, files without per-replication
traces, and numbers that are not finite or beyond ±1e300.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			if o.Out == "" {
				return exitcode.With(exitcode.Input, fmt.Errorf("merge: --out is required"))
			}
			if runF != nil {
				return runF(o)
			}
			return mergeRun(o)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", "write the merged results file here")
	return cmd
}

// mergeRun merges the shards o names into o.Out.
func mergeRun(o *Options) error {
	inputs := [][2]string{{"the --config file", o.F.Config}}
	for _, a := range o.Inputs {
		inputs = append(inputs, [2]string{"a merge input", a})
	}
	if err := cmdutil.CheckOut("--out", o.Out, inputs); err != nil {
		return err
	}
	files, err := results.ReadFiles(o.Inputs)
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	merged, err := shard.Merge(files, o.Inputs)
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	// A shard's comparison section covers only its replications.
	if err := compare.Reattach(merged, files[0]); err != nil {
		fmt.Fprintf(o.F.Stderr, "bench: warning: merge: the comparison section is dropped: %v\n", err)
	}
	if err := merged.WriteFile(o.Out); err != nil {
		return err
	}
	fmt.Fprintf(o.F.Stdout, "merged %d shards (%d replications) into %s\n", len(files), merged.Scenario.Runs, o.Out)
	return nil
}
