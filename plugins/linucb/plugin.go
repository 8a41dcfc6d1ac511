// Package linucb is the shipped linucb plugin: Plugin, which the command
// bench-plugin-linucb (cmd/bench-plugin-linucb) serves to bench. It plays
// contextual scenarios only.
package linucb

import (
	"github.com/regretbench/regretbench/plugins/linucb/linucb"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-linucb (cmd/bench-plugin-linucb) serves;
// the tests check this very value.
var Plugin = sdk.Plugin{Name: "linucb", Version: "1.0.0", Params: linucb.Params, NewContextual: linucb.New}
