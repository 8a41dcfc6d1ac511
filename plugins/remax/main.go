// Command bench-plugin-remax serves exact ReMax (M = 2, the paper's
// Algorithm 1) with variance inflation to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/remax/remax"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "remax", Version: "1.0.0", Params: remax.Params,
	Diagnostics: remax.Diagnostics, New: remax.New}

func main() {
	sdk.Serve(plugin)
}
