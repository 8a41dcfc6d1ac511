// Command bench-plugin-logts serves logistic Thompson sampling with a
// diagonal Laplace posterior (Chapelle & Li 2011) to bench, for
// contextual scenarios with Bernoulli rewards.
package main

import (
	"github.com/regretbench/regretbench/plugins/logts"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(logts.Plugin)
}
