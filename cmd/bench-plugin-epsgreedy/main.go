// Command bench-plugin-epsgreedy serves the epsilon-greedy contextual
// policy on an online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/epsgreedy"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(epsgreedy.Plugin)
}
