// Package swucb is the shipped swucb plugin: Plugin, which the command
// bench-plugin-swucb (cmd/bench-plugin-swucb) serves to bench.
package swucb

import (
	"github.com/regretbench/regretbench/plugins/swucb/swucb"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-swucb (cmd/bench-plugin-swucb) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "swucb", Version: "1.0.0", Params: swucb.Params, New: swucb.New}
