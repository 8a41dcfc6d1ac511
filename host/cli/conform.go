package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

// conformOptions are the argument and flags of bench conform.
type conformOptions struct {
	f            *factory
	target       string   // NAME|PATH of the plugin
	quick        bool     // --quick
	only         []string // --rule
	startTimeout time.Duration
}

// newCmdConform returns bench conform. runF, when not nil, receives the
// options in place of checking the plugin (for tests).
func newCmdConform(f *factory, runF func(*conformOptions) error) *cobra.Command {
	o := &conformOptions{f: f}
	cmd := &cobra.Command{
		Use:   "conform NAME|PATH",
		Short: "Check that a plugin executable, in any language, follows the plugin contract",
		Long: `Run the conformance kit against a plugin executable: NAME is looked up in
the plugin directory as bench-plugin-NAME (--plugin-dir), and a PATH (one
holding a /) is used as it is. The plugin is launched as a run launches it,
over every transport it offers (the step socket, the Steps stream, unary
Step), and checked against the rules of the Go SDK's sdktest package: the
very same catalogue, so a Go plugin that passes its sdktest tests passes
here.

One line per rule, per transport where it applies:

  PASS valid-arms/socket
  FAIL batch-split/grpc-unary: alone it pulls arm 2, in the batch of 40 arm 0 (round 7, replication 13)
  SKIP ...: why the rule was not checked

--rule NAME checks only the rules named. The rules: ` + ruleNames() + `.

Exit codes: 0 when every rule passes; 1 when a rule fails; 2 on a usage
error or when the plugin is not found.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.target = args[0]
			if runF != nil {
				return runF(o)
			}
			return conformRun(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.quick, "quick", false, "smaller sessions (3 arms, 40 rounds, 3 replications): faster, less thorough")
	cmd.Flags().StringSliceVar(&o.only, "rule", nil, "check only this rule (repeatable, or comma-separated; the handshake is always checked)")
	cmd.Flags().DurationVar(&o.startTimeout, "start-timeout", defaultStartTimeout, "fail a plugin that does not complete its handshake and Describe within this time")
	return cmd
}

// conformRun checks the plugin o names against the conformance kit.
func conformRun(ctx context.Context, o *conformOptions) error {
	path, err := conformTarget(o.f.dir(), o.target)
	if err != nil {
		return withCode(ExitInput, err)
	}
	// exec looks a name without a slash up in PATH: a plugin
	// found in --plugin-dir . is ./bench-plugin-NAME.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	opts := []sdktest.Option{sdktest.WithStartTimeout(o.startTimeout)}
	if len(o.only) > 0 {
		known := map[string]bool{}
		var names []string
		for _, r := range sdktest.Rules() {
			known[r.Name] = true
			names = append(names, r.Name)
		}
		for _, n := range o.only {
			if !known[n] {
				return withCode(ExitInput, fmt.Errorf("--rule %s: no such rule; the rules are %s", n, strings.Join(names, ", ")))
			}
		}
		opts = append(opts, sdktest.WithRules(o.only...))
	}
	if o.quick {
		opts = append(opts, sdktest.Quick())
	}
	// The checks' messages quote the plugin's answers, errors and stderr:
	// escaped for the terminal, each line on its own (termsafe).
	w := termsafe.Writer(o.f.stdout)
	fmt.Fprintf(w, "conform %s\n", path)
	var failed []string
	passed := 0
	trs := sdktest.CheckExecutable(ctx, path, func(r sdktest.Result) {
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "SKIP %s: %s\n", r.Name(), r.Skipped)
		case r.Err != nil:
			failed = append(failed, r.Name())
			fmt.Fprintf(w, "FAIL %s: %s\n", r.Name(), indentRest(r.Err.Error(), "       "))
			fmt.Fprintf(w, "       rule: %s\n", r.Doc)
		default:
			passed++
			fmt.Fprintf(w, "PASS %s\n", r.Name())
		}
	}, opts...)
	fmt.Fprintf(w, "%d passed, %d failed", passed, len(failed))
	if len(trs) > 0 {
		fmt.Fprintf(w, " (transports: %s)", strings.Join(trs, ", "))
	}
	fmt.Fprintln(w)
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return withCode(ExitFailure, fmt.Errorf("plugin %s does not conform: %d check(s) failed: %s",
			path, len(failed), strings.Join(failed, ", ")))
	}
	return nil
}

// conformTarget resolves bench conform's argument: a path when it holds a
// path separator, else a plugin name in dir.
func conformTarget(dir registry.Dir, arg string) (string, error) {
	if !strings.ContainsRune(arg, os.PathSeparator) {
		return dir.Find(arg)
	}
	st, err := os.Stat(arg)
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", arg, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("plugin %s: is a directory, want a plugin executable", arg)
	}
	return arg, nil
}

// indentRest indents every line of s but the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// ruleNames lists the kit's rules for the help text.
func ruleNames() string {
	var names []string
	for _, r := range sdktest.Rules() {
		names = append(names, r.Name)
	}
	// Wrapped as the rest of the help text.
	var b strings.Builder
	col := len("--rule NAME checks only the rules named. The rules: ")
	for i, n := range names {
		word := n + ","
		if i == len(names)-1 {
			word = n
		}
		if col+len(word)+1 > 72 {
			b.WriteString("\n")
			col = 0
		} else if i > 0 {
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}
