package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/sdk"
)

func newPluginsCmd(ro *runOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins in the plugin directory with their parameters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := ro.dir()
			names, err := dir.Names()
			if err != nil {
				return withCode(ExitInput, fmt.Errorf("plugin directory %s: %w", dir.Path, err))
			}
			w := ro.stdout
			fmt.Fprintf(w, "plugins in %s:\n", dir.Path)
			var failed []string
			for _, name := range names {
				path, _ := dir.Find(name)
				sum, _ := registry.SHA256(path)
				c, err := sdk.Launch(path, sdk.LaunchOptions{StartTimeout: ro.startTimeout})
				if err != nil {
					fmt.Fprintf(w, "\n%s  (%s)\n  error: %v\n", name, path, err)
					failed = append(failed, name)
					continue
				}
				d, err := c.Describe(context.Background())
				c.Close()
				if err != nil {
					fmt.Fprintf(w, "\n%s  (%s)\n  error: %v\n", name, path, err)
					failed = append(failed, name)
					continue
				}
				fmt.Fprintf(w, "\n%s %s  protocol %d  %s\n  path   %s\n  sha256 %s\n", d.Name, d.Version, d.ProtocolVersion, d.SDK, path, sum)
				for _, p := range d.Params {
					fmt.Fprintf(w, "  param  %-20s %-6s default %-8v %s\n", p.Name, p.Type, p.Default, p.Doc)
				}
				if len(d.Diagnostics) > 0 {
					fmt.Fprintf(w, "  diagnostics %s\n", strings.Join(d.Diagnostics, ", "))
				}
			}
			if len(failed) > 0 {
				return withCode(ExitPolicy, fmt.Errorf("%d plugin(s) failed to describe themselves: %s", len(failed), strings.Join(failed, ", ")))
			}
			return nil
		},
	}
}

func newScenariosCmd(ro *runOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the shipped scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := ro.stdout
			for _, name := range scenario.Shipped() {
				sc, err := scenario.Named(name)
				if err != nil {
					return err
				}
				var labels []string
				for _, p := range sc.Policies {
					labels = append(labels, p.Label)
				}
				fmt.Fprintf(w, "%-20s K=%-3d T=%-6d runs=%-5d %s\n%20s policies: %s\n", name, sc.K(), sc.Horizon, sc.Runs, sc.Description, "", strings.Join(labels, ", "))
			}
			return nil
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print a scenario as resolved YAML (defaults filled in)",
		Args:  cobra.ExactArgs(1),
		ValidArgs: func() []string {
			s := scenario.Shipped()
			sort.Strings(s)
			return s
		}(),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := scenario.Resolve(args[0])
			if err != nil {
				return withCode(ExitInput, err)
			}
			b, err := sc.YAML()
			if err != nil {
				return err
			}
			_, err = ro.stdout.Write(b)
			return err
		},
	})
	return cmd
}
