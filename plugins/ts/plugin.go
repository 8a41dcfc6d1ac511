// Package ts is the shipped ts plugin: Plugin, which the command
// bench-plugin-ts (cmd/bench-plugin-ts) serves to bench.
package ts

import (
	"github.com/regretbench/regretbench/plugins/ts/thompson"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-ts (cmd/bench-plugin-ts) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "ts", Version: "1.0.0", Params: thompson.Params, New: thompson.New}
