// Package ctxgreedy is the shipped ctxgreedy plugin, greedy on an online
// ridge regression oracle: Plugin, which the command bench-plugin-ctxgreedy
// (cmd/bench-plugin-ctxgreedy) serves to bench. It plays contextual
// scenarios only. (The name leaves "greedy" to the context-free example of
// the plugin authors' guides.)
package ctxgreedy

import (
	"github.com/regretbench/regretbench/plugins/ctxgreedy/greedy"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-ctxgreedy (cmd/bench-plugin-ctxgreedy)
// serves; the tests check this very value.
var Plugin = sdk.Plugin{Name: "ctxgreedy", Version: "1.0.0", Params: greedy.GreedyParams, NewContextual: greedy.NewGreedy}
