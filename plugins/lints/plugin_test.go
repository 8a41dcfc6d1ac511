package lints

import (
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
)

// TODO(conformance): sdktest.Run on Plugin once the conformance kit runs
// contextual sessions.

func TestParamRanges(t *testing.T)        { ctxsim.CheckParamRanges(t, Plugin) }
func TestRefusesContextFree(t *testing.T) { ctxsim.CheckRefusesContextFree(t, Plugin) }

// TestRerun: the same seed gives bit-identical arms, probability 0 (not
// said), in both context shapes.
func TestRerun(t *testing.T) { ctxsim.CheckRerun(t, Plugin, false, true, ctxsim.Unsaid) }
