package lingreedy

import (
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

func TestParamRanges(t *testing.T)        { simtest.CheckParamRanges(t, Plugin) }
func TestRefusesContextFree(t *testing.T) { ctxsim.CheckRefusesContextFree(t, Plugin) }

// TestRerun: the same seed gives bit-identical arms, probability 1, in
// both context shapes.
func TestRerun(t *testing.T) { ctxsim.CheckRerun(t, Plugin, false, true, ctxsim.Deterministic) }

// TestConformance: the conformance kit's rules, the contextual ones
// included, over every transport.
func TestConformance(t *testing.T) { sdktest.Run(t, Plugin) }
