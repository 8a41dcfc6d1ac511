// Package ducb is the shipped ducb plugin: Plugin, which the command
// bench-plugin-ducb (cmd/bench-plugin-ducb) serves to bench.
package ducb

import (
	"github.com/regretbench/regretbench/plugins/ducb/ducb"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-ducb (cmd/bench-plugin-ducb) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "ducb", Version: "1.0.0", Params: ducb.Params, New: ducb.New}
