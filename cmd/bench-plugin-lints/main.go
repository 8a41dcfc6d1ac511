// Command bench-plugin-lints serves linear Thompson sampling (Agrawal &
// Goyal 2013) to bench, for contextual scenarios.
package main

import (
	"github.com/regretbench/regretbench/plugins/lints"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(lints.Plugin)
}
