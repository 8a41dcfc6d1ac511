// Command bench-plugin-klucb serves the KL-UCB policy to bench.
package main

import (
	"github.com/regretbench/regretbench/plugins/klucb"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(klucb.Plugin)
}
