package sdk

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
)

// Plugin describes a policy plugin: what Describe reports and how to build
// its policies. For context-free scenarios at most one of New and NewBatch
// is set, for contextual ones (docs/contextual.md) at most one of
// NewContextual and NewContextualBatch; at least one of the four is. A
// plugin with only contextual factories plays only contextual scenarios.
type Plugin struct {
	Name        string   // short name, e.g. "ts"; the executable is bench-plugin-<Name>
	Version     string   // the plugin's own version, recorded in results
	Params      []Param  // declared parameters with defaults
	Diagnostics []string // names of the diagnostics its policies report (see Diagnoser)

	New      Factory      // per-replication policies, run in parallel by the SDK
	NewBatch BatchFactory // or: one vectorised policy per batch

	NewContextual      ContextualFactory // contextual per-replication policies
	NewContextualBatch BatchFactory      // or: one vectorised contextual policy per batch (BatchStep.Contexts)
}

func (p *Plugin) validate() error {
	if p.Name == "" {
		return fmt.Errorf("sdk: Plugin.Name is empty")
	}
	if p.New != nil && p.NewBatch != nil {
		return fmt.Errorf("sdk: plugin %s: set at most one of New and NewBatch", p.Name)
	}
	if p.NewContextual != nil && p.NewContextualBatch != nil {
		return fmt.Errorf("sdk: plugin %s: set at most one of NewContextual and NewContextualBatch", p.Name)
	}
	if p.New == nil && p.NewBatch == nil && !p.contextual() {
		return fmt.Errorf("sdk: plugin %s: set one of New, NewBatch, NewContextual and NewContextualBatch", p.Name)
	}
	d, err := protoconv.ToDescribe(&description{Name: p.Name, Version: p.Version, SDK: SDKVersion, Params: p.Params, Diagnostics: p.Diagnostics})
	if err != nil {
		// A value the wire cannot carry (a missing default, an int32):
		// params.Validate says what the parameter wants, if it objects.
		if perr := params.ValidateAll(p.Params); perr != nil {
			err = perr
		}
	} else {
		err = wire.CheckDescribe(d)
	}
	if err != nil {
		return fmt.Errorf("sdk: plugin %s: %w", wire.Truncate(p.Name, MaxNameLen), err)
	}
	if err := params.ValidateAll(p.Params); err != nil {
		return fmt.Errorf("sdk: plugin %s: %w", p.Name, err)
	}
	return nil
}

// contextual reports whether p plays contextual sessions.
func (p *Plugin) contextual() bool { return p.NewContextual != nil || p.NewContextualBatch != nil }

// SDKVersion identifies this SDK in Describe responses.
const SDKVersion = "regretbench-go/0.1.0"
