// Command bench-plugin-moss serves MOSS (Audibert and Bubeck 2009) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/moss"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(moss.Plugin)
}
