// Command bench-plugin-ucb1-example is a third-party regretbench plugin:
// UCB1, built outside the regretbench module. It is named ucb1-example, not
// ucb1, so that it never replaces the shipped ucb1 plugin in bench's plugin
// directory. Build it there:
//
//	go build -o "$(dirname "$(command -v bench)")/plugins/bench-plugin-ucb1-example" .
//
// and name it in a scenario as `plugin: ucb1-example`.
package main

import "github.com/regretbench/regretbench/sdk"

// plugin is what this executable serves; the test checks the same value.
var plugin = sdk.Plugin{Name: "ucb1-example", Version: "0.1.0", Params: params, New: newUCB1}

func main() { sdk.Serve(plugin) }
