// Package lints is the shipped lints plugin: Plugin, which the command
// bench-plugin-lints (cmd/bench-plugin-lints) serves to bench. It plays
// contextual scenarios only.
package lints

import (
	"github.com/regretbench/regretbench/plugins/lints/lints"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-lints (cmd/bench-plugin-lints) serves; the
// tests check this very value.
var Plugin = sdk.Plugin{Name: "lints", Version: "1.0.0", Params: lints.Params, NewContextual: lints.New}
