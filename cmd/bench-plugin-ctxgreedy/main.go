// Command bench-plugin-ctxgreedy serves the greedy contextual policy on an
// online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ctxgreedy"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(ctxgreedy.Plugin)
}
