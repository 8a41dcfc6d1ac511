// Package ctxepsgreedy is the shipped ctxepsgreedy plugin, epsilon-greedy
// on an online ridge regression oracle: Plugin, which the command
// bench-plugin-ctxepsgreedy (cmd/bench-plugin-ctxepsgreedy) serves to
// bench. It plays contextual scenarios only; the policy is
// plugins/ctxgreedy/greedy's epsilon-greedy. (The name leaves "epsgreedy"
// to the context-free Python example.)
package ctxepsgreedy

import (
	"github.com/regretbench/regretbench/plugins/ctxgreedy/greedy"
	"github.com/regretbench/regretbench/sdk"
)

// Plugin is what bench-plugin-ctxepsgreedy (cmd/bench-plugin-ctxepsgreedy)
// serves; the tests check this very value.
var Plugin = sdk.Plugin{Name: "ctxepsgreedy", Version: "1.0.0", Params: greedy.EpsilonParams, NewContextual: greedy.NewEpsilon}
