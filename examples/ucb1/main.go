// Command bench-plugin-ucb1 is a third-party regretbench plugin: UCB1, built
// outside the regretbench module. Build it into bench's plugin directory:
//
//	go build -o "$(dirname "$(command -v bench)")/plugins/bench-plugin-ucb1" .
//
// and name it in a scenario as `plugin: ucb1`.
package main

import "github.com/regretbench/regretbench/sdk"

// plugin is what this executable serves; the test checks the same value.
var plugin = sdk.Plugin{Name: "ucb1", Version: "0.1.0", Params: params, New: newUCB1}

func main() { sdk.Serve(plugin) }
