// Command bench-plugin-ts serves the Thompson sampling policy to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ts"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(ts.Plugin)
}
