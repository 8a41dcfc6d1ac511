// Package remaxgrad is the shipped remaxgrad plugin: Plugin, which the command
// bench-plugin-remaxgrad (cmd/bench-plugin-remaxgrad) serves to bench.
package remaxgrad

import (
	"github.com/regretbench/regretbench/plugins/remaxgrad/remaxgrad"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-remaxgrad (cmd/bench-plugin-remaxgrad) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "remaxgrad", Version: "1.0.0", Params: remaxgrad.Params,
	Diagnostics: remaxgrad.Diagnostics, New: remaxgrad.New}
