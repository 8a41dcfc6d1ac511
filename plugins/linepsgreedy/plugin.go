// Package epsgreedy is the shipped epsgreedy plugin, epsilon-greedy on an
// online ridge regression oracle: Plugin, which the command
// bench-plugin-linepsgreedy (cmd/bench-plugin-linepsgreedy) serves to bench. It
// plays contextual scenarios only; the policy is plugins/lingreedy/greedy's
// epsilon-greedy.
package linepsgreedy

import (
	"github.com/regretbench/regretbench/plugins/lingreedy/greedy"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-linepsgreedy (cmd/bench-plugin-linepsgreedy)
// serves; the tests check this very value.
var Plugin = sdk.Plugin{Name: "linepsgreedy", Version: "1.0.0", Params: greedy.EpsilonParams, NewContextual: greedy.NewEpsilon}
