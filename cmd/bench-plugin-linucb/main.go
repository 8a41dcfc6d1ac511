// Command bench-plugin-linucb serves disjoint LinUCB (Li, Chu, Langford &
// Schapire 2010) to bench, for contextual scenarios.
package main

import (
	"github.com/regretbench/regretbench/plugins/linucb"
	"github.com/regretbench/regretbench/sdk"
)

func main() {
	sdk.Serve(linucb.Plugin)
}
