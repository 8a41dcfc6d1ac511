// Command bench-plugin-swucb serves sliding-window UCB (Garivier and Moulines) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/swucb/swucb"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "swucb", Version: "1.0.0", Params: swucb.Params, New: swucb.New}

func main() {
	sdk.Serve(plugin)
}
