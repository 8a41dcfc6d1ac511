// Command bench-plugin-swucb serves sliding-window UCB (Garivier and Moulines) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/swucb"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(swucb.Plugin)
}
