package sdk

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
)

// Plugin describes a policy plugin: what Describe reports and how to build
// its policies. Exactly one of New and NewBatch is set.
type Plugin struct {
	Name        string   // short name, e.g. "ts"; the executable is bench-plugin-<Name>
	Version     string   // the plugin's own version, recorded in results
	Params      []Param  // declared parameters with defaults
	Diagnostics []string // names of the diagnostics its policies report (see Diagnoser)

	New      Factory      // per-replication policies, run in parallel by the SDK
	NewBatch BatchFactory // or: one vectorised policy per batch
}

func (p *Plugin) validate() error {
	if p.Name == "" {
		return fmt.Errorf("sdk: Plugin.Name is empty")
	}
	if (p.New == nil) == (p.NewBatch == nil) {
		return fmt.Errorf("sdk: plugin %s: set exactly one of New and NewBatch", p.Name)
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

// SDKVersion identifies this SDK in Describe responses.
const SDKVersion = "regretbench-go/0.1.0"
