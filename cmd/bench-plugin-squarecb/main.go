// Command bench-plugin-squarecb serves SquareCB (Foster & Rakhlin 2020) on
// an online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/squarecb"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(squarecb.Plugin)
}
