// Command bench-plugin-ducb serves discounted UCB (Garivier and Moulines) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ducb/ducb"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "ducb", Version: "1.0.0", Params: ducb.Params, New: ducb.New}

func main() {
	sdk.Serve(plugin)
}
