// Command bench-plugin-ucb1 serves UCB1 (Auer, Cesa-Bianchi and Fischer 2002) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/ucb1"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(ucb1.Plugin)
}
