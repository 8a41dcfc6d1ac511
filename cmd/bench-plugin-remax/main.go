// Command bench-plugin-remax serves exact ReMax (M = 2, the paper's
// Algorithm 1) with variance inflation to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/remax"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(remax.Plugin)
}
