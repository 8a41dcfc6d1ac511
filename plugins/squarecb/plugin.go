// Package squarecb is the shipped squarecb plugin: Plugin, which the
// command bench-plugin-squarecb (cmd/bench-plugin-squarecb) serves to
// bench. It plays contextual scenarios only.
package squarecb

import (
	"github.com/regretbench/regretbench/plugins/squarecb/squarecb"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-squarecb (cmd/bench-plugin-squarecb)
// serves; the tests check this very value.
var Plugin = sdk.Plugin{Name: "squarecb", Version: "1.0.0", Params: squarecb.Params, NewContextual: squarecb.New}
