package klucb

import (
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	t.Run("gaussian", func(t *testing.T) { sdktest.Run(t, Plugin) })
	t.Run("bernoulli", func(t *testing.T) { sdktest.Run(t, Plugin, sdktest.WithFamily(sdk.Bernoulli)) })
}

// TestParamRanges: the ranges Describe declares are exactly what New
// refuses, so bench refuses a bad value before a run starts.
func TestParamRanges(t *testing.T) { simtest.CheckParamRanges(t, Plugin) }
