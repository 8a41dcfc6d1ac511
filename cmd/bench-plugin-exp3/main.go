// Command bench-plugin-exp3 serves Exp3 (Auer, Cesa-Bianchi, Freund and Schapire 2002) to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/exp3"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(exp3.Plugin)
}
