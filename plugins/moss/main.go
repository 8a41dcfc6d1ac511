// Command bench-plugin-moss serves MOSS (Audibert and Bubeck 2009) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/moss/moss"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "moss", Version: "1.0.0", Params: moss.Params, New: moss.New}

func main() {
	sdk.Serve(plugin)
}
