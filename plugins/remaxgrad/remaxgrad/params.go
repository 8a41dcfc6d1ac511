package remaxgrad

import (
	"fmt"

	"github.com/regretbench/regretbench/sdk"
)

// Params declares ReMaxGrad's parameters; the defaults are the paper's
// settings (S=50, L=20, eta=0.05, tau=1e-6, Appendix "ReMax with larger M").
// Their ranges are those Config.Validate enforces, so that bench refuses a
// bad value before a run starts.
var Params = []sdk.Param{
	{Name: "m", Type: sdk.Int, Default: int64(2), Min: sdk.Inclusive(2), Max: sdk.Inclusive(MaxM),
		Doc: "number of draws M in the ReMax objective E max_{m<=M} theta_{A_m} (2 <= M <= 100: a round's time grows with M)"},
	{Name: "samples", Type: sdk.Int, Default: int64(50), Min: sdk.Inclusive(1), Max: sdk.Inclusive(MaxSamples),
		Doc: "posterior samples S per round in the sample-average objective (at most 1000: each replication keeps 25 bytes per arm and sample)"},
	{Name: "steps", Type: sdk.Int, Default: int64(20), Min: sdk.Inclusive(0), Max: sdk.Inclusive(MaxSteps),
		Doc: "maximum number L of Adam steps per round (at most 1000: a round's time grows with L)"},
	{Name: "lr", Type: sdk.Float, Default: 0.05, Min: sdk.Exclusive(0), Doc: "Adam learning rate eta on the softmax logits"},
	{Name: "tol", Type: sdk.Float, Default: 1e-6, Min: sdk.Inclusive(0), Doc: "KKT-gap tolerance tau: stop a round's steps once max_i g_i - <g,pi> <= tau"},
	{Name: "variance_inflation", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0), Max: sdk.Inclusive(1e300), Doc: "posterior variance factor c2: theta_i ~ N(muhat_i, c2 sd^2/N_i)"},
	{Name: "variant", Type: sdk.String, Default: VariantPaper, Allowed: []any{VariantPaper, VariantRobust},
		Doc: "paper: Algorithm 2 as written; robust: a scale-free stop rule (tv_tol), logits that cannot drift out of reach and a 0.3 share of Thompson-sampling draws, so that no arm freezes (see the package doc)"},
	{Name: "tv_tol", Type: sdk.Float, Default: DefaultTVTol, Min: sdk.Inclusive(0), Max: sdk.Exclusive(1),
		Doc: "robust variant only: stop a round's steps after one that moves pi by at most tv_tol in total variation (tol is then unused)"},
	{Name: "logit_floor", Type: sdk.Float, Default: DefaultLogitFloor, Min: sdk.Inclusive(0), Max: sdk.Inclusive(700),
		Doc: "robust variant only: each round starts from logits re-centred to max 0 and raised to at least -logit_floor (lower explores more; 0 starts every round from uniform)"},
}

// Upper bounds of the m, samples and steps parameters. None has a natural
// one, but each costs: a replication keeps its round's samples, about
// BytesPerSample bytes per arm and sample (samples: 1e8 took 18.8 GB), and
// a gradient evaluation takes M-1 multiplications per arm and sample
// (m: 1e9 stalled every round). At the bounds, 20 times the paper's S = 50
// and 25 times its largest M = 4, a plugin's sample buffers take 25 kB per
// replication and arm, so 1 GB holds 40,000 replication-arms at once: the
// full-scale remaxgrad_ten_arm (1,000 replications of 10 arms, both
// sessions of a policy in one plugin) four times over. Memory grows with
// the replications a plugin holds at once (--batch, two sessions at a
// time) and the arms; time grows with M, about 12 times the M = 4 time at
// M = 100. A round takes up to L Adam steps, each a gradient evaluation
// (about half a microsecond at K = 10, M = 2, 50 samples, and growing with
// K, S and M): at MaxSteps, 50 times the paper's L = 20, a ten-arm round
// stays near a millisecond, where an unbounded L (steps: 1e9) would stall
// every round.
const (
	MaxM       = 100
	MaxSamples = 1000
	MaxSteps   = 1000
	// BytesPerSample is the memory a replication keeps per arm and
	// sample: the round's normals, the sorted gaps, the orderings and,
	// for M = 2 and K <= 16, the samples arm by arm.
	BytesPerSample = 8 + 8 + 1 + 8
)

// The values of the variant parameter.
const (
	VariantPaper  = "paper"  // Algorithm 2 as written
	VariantRobust = "robust" // scale-free stop rule and logit floor
)

// Defaults of the robust variant's parameters, and its share of
// Thompson-sampling draws (a constant, not a parameter: see Config.TSShare).
const (
	DefaultTVTol      = 1e-4
	DefaultLogitFloor = 8.0
	DefaultTSShare    = 0.3
)

// Diagnostics names the per-round diagnostics a policy reports through
// sdk.Diagnoser, in this order (see the package doc).
var Diagnostics = []string{"kkt_gap", "adam_steps", "support_size"}

// SupportThreshold is the probability above which an arm counts towards the
// support_size diagnostic.
const SupportThreshold = 1e-3

// Config holds ReMaxGrad's settings, as read from Params.
type Config struct {
	M                 int     // draws per ReMax tuple
	Samples           int     // posterior samples S per round
	Steps             int     // maximum Adam steps L per round
	LR                float64 // Adam learning rate eta
	Tol               float64 // KKT-gap tolerance tau
	VarianceInflation float64 // posterior variance factor c2
	Variant           string  // VariantPaper (or "", the same) or VariantRobust
	TVTol             float64 // the robust variant's total-variation tolerance
	LogitFloor        float64 // the robust variant's logit floor F
	// TSShare is the robust variant's probability of playing a
	// Thompson-sampling draw instead of a draw from pi (see the package
	// doc). It is not a plugin parameter: ConfigFromParams sets
	// DefaultTSShare, so that the parameters results files record for the
	// paper variant stay as they were.
	TSShare float64
}

// DefaultConfig returns the paper's settings with M = 2.
func DefaultConfig() Config {
	return Config{M: 2, Samples: 50, Steps: 20, LR: 0.05, Tol: 1e-6, VarianceInflation: 1,
		Variant: VariantPaper, TVTol: DefaultTVTol, LogitFloor: DefaultLogitFloor, TSShare: DefaultTSShare}
}

// ConfigFromParams reads and validates a Config from resolved parameters.
func ConfigFromParams(p sdk.Params) (Config, error) {
	c := Config{
		M:                 p.Int("m"),
		Samples:           p.Int("samples"),
		Steps:             p.Int("steps"),
		LR:                p.Float("lr"),
		Tol:               p.Float("tol"),
		VarianceInflation: p.Float("variance_inflation"),
		Variant:           p.String("variant"),
		TVTol:             p.Float("tv_tol"),
		LogitFloor:        p.Float("logit_floor"),
		TSShare:           DefaultTSShare,
	}
	return c, c.Validate()
}

// Validate reports the first parameter out of its range, the ranges
// Params declares.
func (c Config) Validate() error {
	switch {
	case c.M > MaxM:
		return fmt.Errorf("parameter %q: want m <= %d, got %d", "m", MaxM, c.M)
	case c.Samples > MaxSamples:
		return fmt.Errorf("parameter %q: want <= %d, got %d", "samples", MaxSamples, c.Samples)
	case c.Steps > MaxSteps:
		return fmt.Errorf("parameter %q: want <= %d, got %d", "steps", MaxSteps, c.Steps)
	}
	return c.validateLower()
}

// validateLower is Validate without the upper bounds of m, samples and steps,
// which bound a plugin's memory and time rather than what the optimizer
// computes correctly: NewOptimizer checks only these.
func (c Config) validateLower() error {
	switch {
	case c.M < 2:
		return fmt.Errorf("parameter %q: want m >= 2, got %d", "m", c.M)
	case c.Samples < 1:
		return fmt.Errorf("parameter %q: want >= 1, got %d", "samples", c.Samples)
	case c.Steps < 0:
		return fmt.Errorf("parameter %q: want >= 0, got %d", "steps", c.Steps)
	case !(c.LR > 0):
		return fmt.Errorf("parameter %q: want > 0, got %v", "lr", c.LR)
	case !(c.Tol >= 0):
		return fmt.Errorf("parameter %q: want >= 0, got %v", "tol", c.Tol)
	case !(c.VarianceInflation > 0) || c.VarianceInflation > 1e300:
		return fmt.Errorf("parameter %q: want a finite value > 0, got %v", "variance_inflation", c.VarianceInflation)
	case c.Variant != "" && c.Variant != VariantPaper && c.Variant != VariantRobust:
		return fmt.Errorf("parameter %q: want %q or %q, got %q", "variant", VariantPaper, VariantRobust, c.Variant)
	case !(c.TVTol >= 0 && c.TVTol < 1):
		return fmt.Errorf("parameter %q: want a value in [0, 1), got %v", "tv_tol", c.TVTol)
	case !(c.LogitFloor >= 0 && c.LogitFloor <= 700): // e^-700 is near the smallest normal float64
		return fmt.Errorf("parameter %q: want a value in [0, 700], got %v", "logit_floor", c.LogitFloor)
	case !(c.TSShare >= 0 && c.TSShare <= 1):
		return fmt.Errorf("Config.TSShare: want a value in [0, 1], got %v", c.TSShare)
	}
	return nil
}
