package sdktest_test

import (
	"math/rand/v2"
	"regexp"
	"testing"
	"time"

	"github.com/regretbench/regretbench/sdk"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

// roundHorizon is what a plugin gaming the kit switches on: a horizon
// that is a multiple of 1,000 and at least 2,000, as every shipped
// scenario's is.
func roundHorizon(t int) bool { return t >= 2000 && t%1000 == 0 }

// TestRoundHorizonsCaught: a plugin that conforms except in sessions of a
// round horizon of 2,000 or more (where it draws from the clock, or pulls
// an arm out of range) fails the kit (--quick's sizes) for every one of 8 seeds: the kit
// plays such horizons often (sdktest's TestPlanRoundSizes bounds how
// often), so that a plugin cannot behave in the kit and cheat in a run.
func TestRoundHorizonsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("the kit 16 times over every transport")
	}
	t.Parallel()
	for _, c := range []struct {
		name string
		mod  func(s sdk.Session, r sdk.Replica, e *epsGreedy) sdk.Policy
	}{
		{"clock at round horizons", func(s sdk.Session, r sdk.Replica, e *epsGreedy) sdk.Policy {
			if roundHorizon(s.Horizon) {
				e.rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), r.Index))
			}
			return e
		}},
		{"bad arm at round horizons", func(s sdk.Session, r sdk.Replica, e *epsGreedy) sdk.Policy {
			if roundHorizon(s.Horizon) {
				return badArm{e}
			}
			return e
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(8) {
				p := good()
				p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return c.mod(s, r, newEps(s, r)), nil }
				err := sdktest.TestPlugin(p, sdktest.WithSeed(seed), sdktest.Quick())
				if err == nil {
					t.Errorf("seed %d: the plugin passed", seed)
					continue
				}
				if !roundInReport.MatchString(err.Error()) {
					t.Errorf("seed %d: no failure names a round horizon:\n%v", seed, err)
				}
			}
		})
	}
}

// roundInReport matches a session of a round horizon of 2,000 or more in
// the kit's report.
var roundInReport = regexp.MustCompile(`T=([2-9]|[1-9][0-9]+)000\b|\b([2-9]|[1-9][0-9]+)000 rounds`)

// badArm returns an arm out of range from the first round it decides.
type badArm struct{ *epsGreedy }

func (b badArm) Select(t int) int { return b.s.Arms }
