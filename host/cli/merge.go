package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/shard"
)

func newMergeCmd(ro *runOptions) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge SHARD.json... --out ALL.json",
		Short: "Merge the results files of the shards of one run exactly",
		Long: `merge combines the results files written by 'bench --shard I/N --out part-I.json'
for I = 0..N-1 into the file the unsharded run would have written (timings
aside: seconds are summed). It refuses, with exit code 2, shards of different
scenarios, seeds or policies, a missing or duplicate shard, and files without
per-replication traces.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return withCode(ExitInput, fmt.Errorf("merge: --out is required"))
			}
			inputs := [][2]string{{"the --config file", ro.config}}
			for _, a := range args {
				inputs = append(inputs, [2]string{"a merge input", a})
			}
			if err := checkOut("--out", out, inputs); err != nil {
				return err
			}
			files := make([]*results.File, len(args))
			for i, a := range args {
				f, err := results.ReadFile(a)
				if err != nil {
					return withCode(ExitInput, err)
				}
				files[i] = f
			}
			merged, err := shard.Merge(files, args)
			if err != nil {
				return withCode(ExitInput, err)
			}
			if err := merged.WriteFile(out); err != nil {
				return err
			}
			fmt.Fprintf(ro.stdout, "merged %d shards (%d replications) into %s\n", len(files), merged.Scenario.Runs, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the merged results file here")
	return cmd
}
