// Command bench-plugin-remaxgrad serves ReMaxGrad (ReMax for M >= 2 by Adam
// on the logits, the paper's Algorithm 2) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/remaxgrad"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(remaxgrad.Plugin)
}
