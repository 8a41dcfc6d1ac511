package scenario

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/regretbench/regretbench/sdk"
)

// Limits on a scenario's size.
const (
	MaxHorizon = 100_000_000 // largest horizon T
	MaxRuns    = 1_000_000   // largest number of replications
	// MaxRewardSquareSum bounds (max |mean x scale| + rewardSDs x
	// noise_sd)^2 x horizon: the sum of squared rewards over a run stays far
	// from overflowing float64 (about 1.8e308).
	MaxRewardSquareSum = 1e300
	// MaxCheckpointCells bounds checkpoints x runs: the engine keeps every
	// replication's four metrics at every checkpoint (twice while a session
	// runs), so memory per running policy is about CheckpointCellBytes per
	// cell, 244 MiB at the bound. The paper's largest run uses 30,000.
	MaxCheckpointCells = 4_000_000
	// CheckpointCellBytes is the memory one checkpoint of one replication
	// costs a running policy: 4 metrics x 8 bytes, in the session's tracker
	// and in the policy's totals.
	CheckpointCellBytes = 4 * 8 * 2
	// rewardSDs is how many noise sds a gaussian reward is taken to reach.
	rewardSDs = 40
)

var (
	pluginName = regexp.MustCompile(`^[a-z0-9_-]+$`)
	paramName  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	hex64      = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	rgbHex     = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
)

// Validate checks the scenario, defaults already applied (Parse applies
// them). It returns every problem found, each an *Error naming the field,
// joined with errors.Join.
func (s *Scenario) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &Error{Source: s.Source, Field: field, Msg: fmt.Sprintf(format, args...)})
	}

	var horizonOK bool
	if s.Context != nil {
		horizonOK = s.checkHorizon(bad)
		s.checkContext(bad, horizonOK)
	} else {
		horizonOK = s.checkEnvironment(bad)
	}
	switch {
	case s.Runs < 1:
		bad("runs", "must be >= 1, got %d", s.Runs)
	case s.Runs > MaxRuns:
		bad("runs", "%d exceeds the maximum %d", s.Runs, MaxRuns)
	}

	if horizonOK {
		switch cp := s.Checkpoints; {
		case len(cp) == 0:
			bad("checkpoints", "empty; omit the key for the default checkpoints")
		default:
			for i, c := range cp {
				field := fmt.Sprintf("checkpoints[%d]", i)
				switch {
				case c < 1 || c > s.Horizon:
					bad(field, "%d is outside [1, horizon %d]", c, s.Horizon)
				case i > 0 && c <= cp[i-1]:
					bad(field, "%d is not greater than checkpoints[%d] = %d (checkpoints must be strictly increasing)", c, i-1, cp[i-1])
				}
			}
			if last := cp[len(cp)-1]; last != s.Horizon && last >= 1 && last <= s.Horizon {
				bad("checkpoints", "the last checkpoint %d is not the horizon %d", last, s.Horizon)
			}
			if cells := len(cp) * s.Runs; s.Runs >= 1 && cells > MaxCheckpointCells {
				bad("checkpoints", "%d checkpoints x %d runs = %d per-replication values per metric, more than the %d bench keeps in memory (about %d MiB per policy); use fewer checkpoints or runs",
					len(cp), s.Runs, cells, MaxCheckpointCells, MaxCheckpointCells*CheckpointCellBytes>>20)
			}
		}
	}

	if len(s.Policies) == 0 {
		bad("policies", "at least one policy is required")
	}
	labels := map[string]int{}
	for i, p := range s.Policies {
		field := fmt.Sprintf("policies[%d]", i)
		switch {
		case p.Plugin == "":
			bad(field+".plugin", "required (the NAME of the executable bench-plugin-NAME)")
		case !pluginName.MatchString(p.Plugin):
			bad(field+".plugin", "invalid plugin name %q (want [a-z0-9_-]+, the NAME of bench-plugin-NAME)", p.Plugin)
		}
		switch {
		case p.Label == "":
			// Only when Plugin is empty too: reported above.
		case strings.TrimSpace(p.Label) != p.Label || strings.IndexFunc(p.Label, unicode.IsControl) >= 0:
			bad(field+".label", "%q has leading or trailing spaces or control characters", p.Label)
		default:
			if j, dup := labels[p.Label]; dup {
				bad(field+".label", "duplicate label %q (also policies[%d])", p.Label, j)
			} else {
				labels[p.Label] = i
			}
		}
		if p.Color != "" && !rgbHex.MatchString(p.Color) {
			bad(field+".color", "%q is not a colour: want \"#RRGGBB\", six hex digits such as \"#0072B2\"", p.Color)
		}
		if p.SHA256 != "" && !hex64.MatchString(p.SHA256) {
			bad(field+".sha256", "want 64 hex digits (the SHA-256 of the plugin binary), got %d characters %q", len(p.SHA256), p.SHA256)
		}
		names := make([]string, 0, len(p.Params))
		for k := range p.Params {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			pf := field + ".params." + k
			if !paramName.MatchString(k) {
				bad(pf, "invalid parameter name %q (parameter names are lower_snake_case)", k)
				continue
			}
			if msg := checkParamValue(p.Params[k]); msg != "" {
				bad(pf, "%s", msg)
			}
		}
	}
	s.checkFeedback(bad)
	return errors.Join(errs...)
}

// checkParamValue accepts the scalar values a plugin parameter may take.
func checkParamValue(v any) string {
	switch x := v.(type) {
	case bool, string, int, int64, uint64:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf("must be finite, got %v", x)
		}
		return ""
	case nil:
		return "has no value"
	}
	return fmt.Sprintf("expected a number, bool or string, got %s", describe(v))
}

// checkEnvironment reports the problems of a context-free scenario's
// environment, init_pulls and changes.
// It reports the horizon's problems too, where they always came (after
// the means), and returns whether the horizon is usable.
func (s *Scenario) checkEnvironment(bad func(field, format string, args ...any)) bool {
	e := s.Environment
	family := sdk.Family(e.Family)
	noiseOK, meansOK := true, true
	switch family {
	case sdk.Gaussian:
		noiseOK = false
		switch {
		case math.IsNaN(e.NoiseSD) || math.IsInf(e.NoiseSD, 0):
			bad("environment.noise_sd", "must be finite, got %v", e.NoiseSD)
		case e.NoiseSD == 0:
			bad("environment.noise_sd", "must be > 0 (required for a gaussian environment)")
		case e.NoiseSD < 0:
			bad("environment.noise_sd", "must be > 0, got %v", e.NoiseSD)
		default:
			noiseOK = true
		}
	case sdk.Bernoulli:
		if e.NoiseSD != 0 {
			bad("environment.noise_sd", "must be absent for a bernoulli environment (the means fix the noise), got %v", e.NoiseSD)
		}
	default:
		bad("environment.family", "unknown family %q (want %s or %s)", e.Family, sdk.Gaussian, sdk.Bernoulli)
	}
	scale := 1.0
	if sc := e.Scale; sc != 0 && !(sc > 0 && !math.IsInf(sc, 1)) {
		bad("environment.scale", "must be a finite number > 0, got %v", sc)
		meansOK = false
	} else if sc != 0 {
		scale = sc
	}
	switch k := len(e.Means); k {
	case 0:
		bad("environment.means", "empty; need at least two arms")
	case 1:
		bad("environment.means", "one arm; need at least two")
	}
	// checkMean judges one mean (of environment.means or of a change) and
	// reports whether it is usable.
	checkMean := func(field string, m float64) bool {
		mu := m * scale
		switch {
		case math.IsNaN(m) || math.IsInf(m, 0):
			bad(field, "must be finite, got %v", m)
			return false
		case math.IsInf(mu, 0):
			bad(field, "%v * scale %v is not finite", m, e.Scale)
			return false
		case family == sdk.Bernoulli && (mu < 0 || mu > 1):
			if e.Scale != 0 {
				bad(field, "%v (after scale) is outside [0, 1], the range of a bernoulli mean", mu)
			} else {
				bad(field, "%v is outside [0, 1], the range of a bernoulli mean", mu)
			}
		}
		return true
	}
	for i, m := range e.Means {
		if !checkMean(fmt.Sprintf("environment.means[%d]", i), m) {
			meansOK = false
		}
	}

	horizonOK := s.checkHorizon(bad)
	if s.InitPulls < 1 {
		bad("init_pulls", "must be >= 1, got %d", s.InitPulls)
	} else if horizonOK && len(e.Means) > 0 && s.Horizon < len(e.Means)*s.InitPulls {
		bad("horizon", "%d is less than the %d forced initial rounds (%d arms x init_pulls %d)",
			s.Horizon, len(e.Means)*s.InitPulls, len(e.Means), s.InitPulls)
	}
	changeMu, changeField := s.checkChanges(bad, checkMean, horizonOK)
	if horizonOK && noiseOK && meansOK && len(e.Means) > 0 {
		// Rewards, their sums over the horizon and the sums of their
		// squares (which policies form) must stay finite, or the metrics and
		// the results file would hold Inf and NaN. The error names the
		// field that holds the largest mean: environment.means, or a
		// change, drift point or random_changes bound of its own.
		maxMu, field := 0.0, "environment.means"
		for _, m := range e.Means {
			maxMu = max(maxMu, math.Abs(m*scale))
		}
		if changeField != "" && changeMu > maxMu {
			maxMu, field = changeMu, changeField
		}
		if r := maxMu + rewardSDs*e.NoiseSD; r*r*float64(s.Horizon) > MaxRewardSquareSum {
			if rewardSDs*e.NoiseSD > maxMu {
				field = "environment.noise_sd"
			}
			bad(field, "too large: rewards reach about %.3g, and %d rounds of their squares overflow (need (max |mean x scale| + %g noise_sd)^2 x horizon <= %g)",
				r, s.Horizon, float64(rewardSDs), MaxRewardSquareSum)
		}
	}
	return horizonOK
}

// checkHorizon reports a horizon out of [1, MaxHorizon] and returns
// whether it is in range.
func (s *Scenario) checkHorizon(bad func(field, format string, args ...any)) bool {
	switch {
	case s.Horizon < 1:
		bad("horizon", "must be >= 1, got %d", s.Horizon)
		return false
	case s.Horizon > MaxHorizon:
		bad("horizon", "%d exceeds the maximum %d", s.Horizon, MaxHorizon)
		return false
	}
	return true
}
