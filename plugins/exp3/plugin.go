// Package exp3 is the shipped exp3 plugin: Plugin, which the command
// bench-plugin-exp3 (cmd/bench-plugin-exp3) serves to bench.
package exp3

import (
	"github.com/regretbench/regretbench/plugins/exp3/exp3"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-exp3 (cmd/bench-plugin-exp3) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "exp3", Version: "1.0.0", Params: exp3.Params, New: exp3.New}
