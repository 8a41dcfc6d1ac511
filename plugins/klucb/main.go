// Command bench-plugin-klucb serves the KL-UCB policy to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/klucb/klucb"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "klucb", Version: "1.0.0", Params: klucb.Params, New: klucb.New}

func main() {
	sdk.Serve(plugin)
}
