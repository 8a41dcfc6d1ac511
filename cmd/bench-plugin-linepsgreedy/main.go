// Command bench-plugin-linepsgreedy serves the epsilon-greedy contextual
// policy on an online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/linepsgreedy"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(linepsgreedy.Plugin)
}
