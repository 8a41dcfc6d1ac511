// Package remax is the shipped remax plugin: Plugin, which the command
// bench-plugin-remax (cmd/bench-plugin-remax) serves to bench.
package remax

import (
	"github.com/regretbench/regretbench/plugins/remax/remax"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-remax (cmd/bench-plugin-remax) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "remax", Version: "1.0.0", Params: remax.Params,
	Diagnostics: remax.Diagnostics, New: remax.New}
