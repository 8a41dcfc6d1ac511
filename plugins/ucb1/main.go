// Command bench-plugin-ucb1 serves UCB1 (Auer, Cesa-Bianchi and Fischer 2002) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ucb1/ucb1"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "ucb1", Version: "1.0.0", Params: ucb1.Params, New: ucb1.New}

func main() {
	sdk.Serve(plugin)
}
