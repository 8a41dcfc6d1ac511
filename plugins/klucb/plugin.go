// Package klucb is the shipped klucb plugin: Plugin, which the command
// bench-plugin-klucb (cmd/bench-plugin-klucb) serves to bench.
package klucb

import (
	"github.com/regretbench/regretbench/plugins/klucb/klucb"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-klucb (cmd/bench-plugin-klucb) serves; the
// conformance tests check this very value.
var Plugin = sdk.Plugin{Name: "klucb", Version: "1.0.0", Params: klucb.Params, New: klucb.New}
