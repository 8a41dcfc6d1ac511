// Package logts is the shipped logts plugin: Plugin, which the command
// bench-plugin-logts (cmd/bench-plugin-logts) serves to bench. It plays
// contextual scenarios with Bernoulli rewards only.
package logts

import (
	"github.com/regretbench/regretbench/plugins/logts/logts"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-logts (cmd/bench-plugin-logts) serves; the
// tests check this very value.
var Plugin = sdk.Plugin{Name: "logts", Version: "1.0.0", Params: logts.Params, NewContextual: logts.New}
