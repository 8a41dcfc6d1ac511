// Command bench-plugin-ts serves the Thompson sampling policy to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ts/thompson"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "ts", Version: "1.0.0", Params: thompson.Params, New: thompson.New}

func main() {
	sdk.Serve(plugin)
}
