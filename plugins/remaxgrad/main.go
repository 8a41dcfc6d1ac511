// Command bench-plugin-remaxgrad serves ReMaxGrad (ReMax for M >= 2 by Adam
// on the logits, the paper's Algorithm 2) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/remaxgrad/remaxgrad"
	"github.com/regretbench/regretbench/sdk"
)

// plugin is what main serves; the conformance tests check this very value.
var plugin = sdk.Plugin{Name: "remaxgrad", Version: "1.0.0", Params: remaxgrad.Params,
	Diagnostics: remaxgrad.Diagnostics, New: remaxgrad.New}

func main() {
	sdk.Serve(plugin)
}
