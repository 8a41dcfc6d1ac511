package conformance

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/internal/seed"
)

// The sizes of the kit's sessions, drawn from the kit's seed over ranges
// that hold every size the shipped scenarios give a session, round
// numbers included, so that a plugin cannot tell a kit's session from a
// run's by its policy seed, arms, horizon or replications (the rule is
// the package documentation's, "Seeds and sizes").
const (
	minArms, maxArms = 2, 100
	// Over the suite's fastest transport, valid-arms and (for an
	// executable) deterministic-seed add a long session of
	// longMin..longMax rounds, so that a fault after round 1000 fails a
	// rule and a plugin deterministic only in short sessions fails too;
	// batch-split adds a batch of midMin..longMax rounds, so that
	// horizons between the general sessions' and the long ones' are
	// played too.
	longMin, longMax = 20_000, 25_000
	midMin           = 1_000
	// minSelect is the fewest rounds a general session plays after the
	// forced ones, so that the policy decides something.
	minSelect = 20
	// maxFirst bounds the first replication index of a session: runs
	// have up to 1,000,000 replications, and a shard or a batch starts
	// anywhere among them.
	maxFirst = 1_000_000
	// roundP is the probability that a size is a round value (roundIn):
	// one the shipped scenarios use, or a multiple of 10, 100, 1,000 or
	// 10,000. Otherwise it is drawn log-uniformly over its range.
	roundP = 0.5
	// bigMin is the smallest horizon of the sizes' bigP sessions.
	bigMin = 2_000
)

// Round values of the shipped scenarios (scenarios/*.yaml): their
// horizons, their numbers of arms, and the replications of their
// sessions (bench plays runs of 64 or more in two sessions of half:
// 1,000 runs in sessions of 500, 200 of 100, 100 of 50; --audit and
// --replication play sessions of 1). roundIn draws from these or from
// multiples of 10, 100, 1,000 and 10,000.
var (
	realHorizons = []int{2_000, 3_000, 10_000, 20_000}
	realArms     = []int{2, 3, 10, 31, 80}
	realReps     = []int{1, 50, 100, 500}
	roundSteps   = []int{10, 100, 1_000, 10_000}
)

// sizes bounds the general sessions: their largest horizon, replication
// count, replications x rounds, how many replications batch-split replays
// alone, and its batch under WithSize; and bigP, the probability that a
// general session's horizon is instead a round one of bigMin..bigMax
// rounds (a multiple of 1,000), as most real runs' are, with as many
// replications as the budget allows. Long sessions are added to these.
type sizes struct {
	maxT, maxReps, budget, singles, batch int
	bigP                                  float64
	bigMax                                int
}

var (
	fullSizes  = sizes{maxT: 1000, maxReps: 500, budget: 16_000, singles: 8, batch: 40, bigP: 0.25, bigMax: 5_000}
	quickSizes = sizes{maxT: 300, maxReps: 100, budget: 2_000, singles: 4, batch: 12, bigP: 0.125, bigMax: 3_000}
)

// seedEnv, set to a seed (0x... or decimal), replaces the random seed of
// Run, RunExecutable and TestPlugin when no WithSeed is given: the seed a
// failure printed, to replay it.
const seedEnv = "REGRETBENCH_SDKTEST_SEED"

// NewSeed returns a seed for the kit drawn from crypto/rand: uniformly
// random, like the policy seeds of real runs (a hash output).
func NewSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("sdktest: crypto/rand: " + err.Error()) // rand.Read does not fail on Linux
	}
	return binary.LittleEndian.Uint64(b[:])
}

// ParseSeed parses a seed as FormatSeed prints it (0x and 16 hex digits),
// or any unsigned integer in Go syntax (decimal, 0x..., 0o..., 0b...).
func ParseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q: want an unsigned 64-bit integer, e.g. 0x1f2e3d4c5b6a7988 or 42", s)
	}
	return v, nil
}

// FormatSeed prints a seed as the kit reports it: 0x and 16 hex digits.
func FormatSeed(s uint64) string { return fmt.Sprintf("%#016x", s) }

// defaultSeed is the seed of a kit run without WithSeed: $REGRETBENCH_SDKTEST_SEED
// when set, else a random one.
func defaultSeed() (uint64, error) {
	if v := os.Getenv(seedEnv); v != "" {
		s, err := ParseSeed(v)
		if err != nil {
			return 0, fmt.Errorf("$%s: %w", seedEnv, err)
		}
		return s, nil
	}
	return NewSeed(), nil
}

// plan draws the sessions of one check (a rule over a transport) from the
// kit's seed and the check's name only, so that a check replays alike
// whichever other rules run with it (bench conform --rule).
type plan struct {
	r   *mrand.Rand
	cfg Config
}

func newPlan(cfg Config, check string) *plan {
	h := fnv.New64a()
	h.Write([]byte(check))
	k := h.Sum64()
	return &plan{r: mrand.New(mrand.NewPCG(seed.Mix(cfg.seed^k), seed.Mix(k+0x9e3779b97f4a7c15))), cfg: cfg}
}

// policySeed draws a policy seed: uniform over 64 bits, as a run's
// (SHA-256 of the scenario seed) looks.
func (p *plan) policySeed() uint64 { return p.r.Uint64() }

// intIn draws an integer in [lo, hi], log-uniformly: small and large
// values alike are common.
func (p *plan) intIn(lo, hi int) int {
	lo = max(lo, 1)
	if hi <= lo {
		return lo
	}
	x := math.Exp(math.Log(float64(lo)) + p.r.Float64()*(math.Log(float64(hi)+1)-math.Log(float64(lo))))
	return min(hi, max(lo, int(x)))
}

// arms draws a number of arms: WithSize's, else a round value of 2..100
// (roundIn) with probability roundP, or log-uniform in 2..100.
func (p *plan) arms() int {
	if p.cfg.fixed != nil {
		return p.cfg.fixed.arms
	}
	return p.sizeIn(minArms, maxArms, realArms)
}

// sizeIn draws a size in [lo, hi]: with probability roundP a round value
// (roundIn), else log-uniformly (intIn).
func (p *plan) sizeIn(lo, hi int, real []int) int {
	if p.r.Float64() < roundP {
		if v, ok := p.roundIn(lo, hi, real); ok {
			return v
		}
	}
	return p.intIn(lo, hi)
}

// roundIn draws a round value in [lo, hi]: half the time one of real (the
// values the shipped scenarios use) that lies there, else a multiple of
// a step of roundSteps, the step uniform among those with a multiple in
// [lo, hi], the multiple uniform. It reports false when [lo, hi] holds
// no round value.
func (p *plan) roundIn(lo, hi int, real []int) (int, bool) {
	var in []int
	for _, v := range real {
		if v >= lo && v <= hi {
			in = append(in, v)
		}
	}
	if len(in) > 0 && p.r.IntN(2) == 0 {
		return in[p.r.IntN(len(in))], true
	}
	var steps []int
	for _, s := range roundSteps {
		if (lo+s-1)/s*s <= hi {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		if len(in) > 0 {
			return in[p.r.IntN(len(in))], true
		}
		return 0, false
	}
	s := steps[p.r.IntN(len(steps))]
	first, last := (lo+s-1)/s, hi/s
	return (first + p.r.IntN(last-first+1)) * s, true
}

// reps draws the replication indices of a session of n: contiguous from
// 0 half the time (a run's first batch), else from anywhere (a later
// batch, a shard).
func (p *plan) reps(n int) []uint64 {
	first := 0
	if p.r.IntN(2) == 1 {
		first = p.sizeIn(1, maxFirst-n, realReps)
	}
	return indices(first, n)
}

// draw is what a rule asks of a general session; zero fields take the
// defaults.
type draw struct {
	initPulls int // default 1
	div       int // the horizon is at most the sizes' largest / div (default 1)
	minReps   int // default 1
	minSelect int // rounds after the forced ones, at least (default minSelect)
}

// session draws a general session: K, a horizon of at least d.minSelect
// rounds after the forced ones and at most maxT/d.div (with probability
// the sizes' bigP a round one of bigMin..bigMax instead), and d.minReps or more
// replications within the budget, or WithSize's sizes.
func (p *plan) session(d draw) spec {
	d.initPulls, d.div, d.minReps = max(d.initPulls, 1), max(d.div, 1), max(d.minReps, 1)
	if d.minSelect == 0 {
		d.minSelect = minSelect
	}
	sz := p.cfg.sizes
	k := p.arms()
	lo := k*d.initPulls + d.minSelect
	var horizon, n int
	if f := p.cfg.fixed; f != nil {
		horizon, n = max(f.horizon, k*d.initPulls+10), max(f.reps, d.minReps)
	} else {
		if p.r.Float64() < sz.bigP && lo <= bigMin {
			horizon = p.big()
		} else {
			horizon = p.sizeIn(lo, max(lo, sz.maxT/d.div), realHorizons)
		}
		n = p.sizeIn(d.minReps, max(d.minReps, min(sz.maxReps, sz.budget/horizon)), realReps)
	}
	return spec{arms: k, horizon: horizon, initPulls: d.initPulls, reps: p.reps(n), seed: p.policySeed(), params: p.cfg.params}
}

// big draws a round horizon of bigMin..bigMax: half the time one of the
// shipped scenarios' there, else a multiple of 1,000, uniformly.
func (p *plan) big() int {
	hi := p.cfg.sizes.bigMax
	var real []int
	for _, t := range realHorizons {
		if t >= bigMin && t <= hi {
			real = append(real, t)
		}
	}
	if len(real) > 0 && p.r.IntN(2) == 0 {
		return real[p.r.IntN(len(real))]
	}
	return (bigMin/1000 + p.r.IntN(hi/1000-bigMin/1000+1)) * 1000
}

// long draws a long session of n replications: longMin..longMax rounds;
// with probability roundP a round value (20,000, as most shipped
// scenarios, half the time, else a multiple of 1,000), else uniform.
func (p *plan) long(n int) spec {
	if p.r.Float64() < roundP {
		t := 20_000
		if p.r.IntN(2) == 0 {
			t = (longMin/1000 + p.r.IntN(longMax/1000-longMin/1000+1)) * 1000
		}
		return p.sized(n, t)
	}
	return p.sized(n, longMin+p.r.IntN(longMax-longMin+1))
}

// mid draws a session of n replications and midMin..longMax rounds: a
// round value with probability roundP, else log-uniformly.
func (p *plan) mid(n int) spec { return p.sized(n, p.sizeIn(midMin, longMax, realHorizons)) }

func (p *plan) sized(n, horizon int) spec {
	return spec{arms: p.arms(), horizon: horizon, initPulls: 1, reps: p.reps(n), seed: p.policySeed(), params: p.cfg.params}
}

// String describes a session as the kit reports it.
func (s spec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "K=%d T=%d", s.arms, s.horizon)
	if s.initPulls != 1 {
		fmt.Fprintf(&b, " init_pulls=%d", s.initPulls)
	}
	n := len(s.reps)
	switch {
	case n == 1:
		fmt.Fprintf(&b, " replication %d", s.reps[0])
	case n > 1 && s.reps[n-1] == s.reps[0]+uint64(n-1):
		fmt.Fprintf(&b, " replications %d..%d", s.reps[0], s.reps[n-1])
	case n > 1 && s.reps[0] == s.reps[n-1]+uint64(n-1):
		fmt.Fprintf(&b, " replications %d..%d reversed", s.reps[n-1], s.reps[0])
	default:
		fmt.Fprintf(&b, " %d replications", n)
	}
	if s.feedback.Delayed() {
		fmt.Fprintf(&b, " feedback %s", s.feedback)
	}
	if s.diagEvery > 0 {
		fmt.Fprintf(&b, " diagnostics every %d", s.diagEvery)
	}
	if s.sameRewards {
		b.WriteString(" same rewards")
	}
	if c := s.context; c.Contextual() {
		fmt.Fprintf(&b, " context dim=%d", c.Dim)
		if c.PerArm {
			b.WriteString(" per arm")
		}
		if s.otherSalt != 0 {
			b.WriteString(" (the other replications' contexts changed)")
		}
	}
	fmt.Fprintf(&b, " seed %s", FormatSeed(s.seed))
	return b.String()
}
