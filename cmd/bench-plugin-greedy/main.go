// Command bench-plugin-greedy serves the greedy contextual policy on an
// online ridge regression oracle to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/greedy"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(greedy.Plugin)
}
