// Package epsgreedy is the shipped epsgreedy plugin, epsilon-greedy on an
// online ridge regression oracle: Plugin, which the command
// bench-plugin-epsgreedy (cmd/bench-plugin-epsgreedy) serves to bench. It
// plays contextual scenarios only; the policy is plugins/greedy/greedy's
// epsilon-greedy.
package epsgreedy

import (
	"github.com/regretbench/regretbench/plugins/greedy/greedy"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-epsgreedy (cmd/bench-plugin-epsgreedy)
// serves; the tests check this very value.
var Plugin = sdk.Plugin{Name: "epsgreedy", Version: "1.0.0", Params: greedy.EpsilonParams, NewContextual: greedy.NewEpsilon}
