package cli

import (
	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/run"
)

// withHelp documents --with's SPEC syntax in the flag help.
const withHelp = `add a policy to the scenario (repeatable), after its own: PLUGIN[:NAME=VALUE,...][@LABEL], ` +
	`e.g. 'bayesucb:c=1@Bayes-UCB c=1'. VALUEs are YAML scalars as in a scenario file (1 is an int, 1.0 a float, ` +
	`true a bool, '1' a string); a backslash makes the next character plain (\, \= \@ \\). The LABEL is everything after ` +
	`the first unescaped @, taken literally (default: the plugin name). The policy gets the scenario's own feedback: ` +
	`mode (immediate if it declares none); the key feedback, not a plugin parameter, overrides it: ` +
	`feedback=delay:D, feedback=geometric:MEAN or feedback=batch:B, e.g. 'ts:feedback=delay:100@TS d=100'. ` +
	`The run then prints a comparison section, which pairs only policies under the same feedback mode`

// added parses every --with SPEC into the policies run.With checks
// against their plugins (run.ParseAdded): a malformed spec is an input
// error (exit 2) naming it, found before anything is loaded or run.
func (o *policyRunOptions) added() ([]run.Added, error) {
	added, err := run.ParseAdded(o.with)
	return added, cmdutil.Flagged(err)
}
