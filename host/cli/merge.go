package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/shard"
)

// mergeOptions are the arguments and flags of bench merge.
type mergeOptions struct {
	f      *factory
	inputs []string // the shards' results files
	out    string   // --out
}

// newCmdMerge returns bench merge. runF, when not nil, receives the
// options in place of merging (for tests).
func newCmdMerge(f *factory, runF func(*mergeOptions) error) *cobra.Command {
	o := &mergeOptions{f: f}
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
			o.inputs = args
			if o.out == "" {
				return withCode(ExitInput, fmt.Errorf("merge: --out is required"))
			}
			if runF != nil {
				return runF(o)
			}
			return mergeRun(o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write the merged results file here")
	return cmd
}

// mergeRun merges the shards o names into o.out.
func mergeRun(o *mergeOptions) error {
	args, out := o.inputs, o.out
	inputs := [][2]string{{"the --config file", o.f.config}}
	for _, a := range args {
		inputs = append(inputs, [2]string{"a merge input", a})
	}
	if err := checkOut("--out", out, inputs); err != nil {
		return err
	}
	files, err := results.ReadFiles(args)
	if err != nil {
		return withCode(ExitInput, err)
	}
	merged, err := shard.Merge(files, args)
	if err != nil {
		return withCode(ExitInput, err)
	}
	// A shard's comparison section covers only its replications.
	if err := compare.Reattach(merged, files[0]); err != nil {
		fmt.Fprintf(o.f.stderr, "bench: warning: merge: the comparison section is dropped: %v\n", err)
	}
	if err := merged.WriteFile(out); err != nil {
		return err
	}
	fmt.Fprintf(o.f.stdout, "merged %d shards (%d replications) into %s\n", len(files), merged.Scenario.Runs, out)
	return nil
}
