// Package greedy is the shipped greedy plugin, greedy on an online ridge
// regression oracle: Plugin, which the command bench-plugin-lingreedy
// (cmd/bench-plugin-lingreedy) serves to bench. It plays contextual scenarios
// only.
package lingreedy

import (
	"github.com/regretbench/regretbench/plugins/lingreedy/greedy"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-lingreedy (cmd/bench-plugin-lingreedy) serves;
// the tests check this very value.
var Plugin = sdk.Plugin{Name: "lingreedy", Version: "1.0.0", Params: greedy.GreedyParams, NewContextual: greedy.NewGreedy}
