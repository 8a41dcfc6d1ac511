// Command bench-plugin-ducb serves discounted UCB (Garivier and Moulines) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ducb"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(ducb.Plugin)
}
