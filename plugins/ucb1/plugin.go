// Package ucb1 is the shipped ucb1 plugin: Plugin, which the command
// bench-plugin-ucb1 (cmd/bench-plugin-ucb1) serves to bench.
package ucb1

import (
	"github.com/regretbench/regretbench/plugins/ucb1/ucb1"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-ucb1 (cmd/bench-plugin-ucb1) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "ucb1", Version: "1.0.0", Params: ucb1.Params, New: ucb1.New}
