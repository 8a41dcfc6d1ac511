package remaxgrad

import (
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	t.Run("gaussian", func(t *testing.T) { sdktest.Run(t, Plugin) })
	t.Run("m3-bernoulli", func(t *testing.T) {
		sdktest.Run(t, Plugin, sdktest.WithFamily(sdk.Bernoulli),
			sdktest.WithParams(map[string]any{"m": 3, "samples": 20}), sdktest.WithSize(3, 60, 4))
	})
	t.Run("robust", func(t *testing.T) {
		sdktest.Run(t, Plugin, sdktest.WithParams(map[string]any{"variant": "robust"}))
	})
}

// TestParamRanges: the ranges Describe declares are exactly what New
// refuses, so bench refuses a bad value before a run starts.
func TestParamRanges(t *testing.T) { simtest.CheckParamRanges(t, Plugin) }
