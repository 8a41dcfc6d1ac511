// Package moss is the shipped moss plugin: Plugin, which the command
// bench-plugin-moss (cmd/bench-plugin-moss) serves to bench.
package moss

import (
	"github.com/regretbench/regretbench/plugins/moss/moss"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-moss (cmd/bench-plugin-moss) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "moss", Version: "1.0.0", Params: moss.Params, New: moss.New}
