// Package greedy is the shipped greedy plugin, greedy on an online ridge
// regression oracle: Plugin, which the command bench-plugin-greedy
// (cmd/bench-plugin-greedy) serves to bench. It plays contextual scenarios
// only.
package greedy

import (
	"github.com/regretbench/regretbench/plugins/greedy/greedy"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-greedy (cmd/bench-plugin-greedy) serves;
// the tests check this very value.
var Plugin = sdk.Plugin{Name: "greedy", Version: "1.0.0", Params: greedy.GreedyParams, NewContextual: greedy.NewGreedy}
