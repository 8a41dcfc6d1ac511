// Command bench-plugin-lingreedy serves the greedy contextual policy on an
// online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/lingreedy"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(lingreedy.Plugin)
}
