// Command bench-plugin-exp3 serves Exp3 (Auer, Cesa-Bianchi, Freund and Schapire 2002) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/exp3/exp3"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "exp3", Version: "1.0.0", Params: exp3.Params, New: exp3.New}

func main() {
	sdk.Serve(plugin)
}
