package remax

import (
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	t.Run("gaussian", func(t *testing.T) { sdktest.Run(t, Plugin) })
	t.Run("inflated", func(t *testing.T) {
		sdktest.Run(t, Plugin, sdktest.WithParams(map[string]any{"variance_inflation": 3.0}))
	})
}

// TestParamRanges: the ranges Describe declares are exactly what New
// refuses, so bench refuses a bad value before a run starts.
func TestParamRanges(t *testing.T) { simtest.CheckParamRanges(t, Plugin) }
