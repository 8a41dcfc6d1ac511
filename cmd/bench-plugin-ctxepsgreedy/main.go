// Command bench-plugin-ctxepsgreedy serves the epsilon-greedy contextual
// policy on an online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ctxepsgreedy"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(ctxepsgreedy.Plugin)
}
