package sdktest

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

// The sizes of the kit's sessions, drawn from the kit's seed within the
// ranges of real scenarios, so that a plugin cannot tell a kit's session
// from a run's by its policy seed, arms, horizon or replications.
const (
	minArms, maxArms = 2, 20
	// Over the suite's fastest transport, valid-arms and (for an
	// executable) deterministic-seed add a long session of
	// longMin..longMax rounds, so that a fault after round 1000 fails a
	// rule and a plugin deterministic only in short sessions fails too;
	// batch-split adds a batch of midMin..longMax rounds (log-uniform),
	// so that horizons between the general sessions' and the long ones'
	// are played too.
	longMin, longMax = 20_000, 25_000
	midMin           = 1_000
	// minSelect is the fewest rounds a general session plays after the
	// forced ones, so that the policy decides something.
	minSelect = 20
	// maxFirst bounds the first replication index of a session: runs
	// have up to 1,000,000 replications, and a shard or a batch starts
	// anywhere among them.
	maxFirst = 1_000_000
)

// sizes bounds the general sessions: their largest horizon, replication
// count, replications x rounds, how many replications batch-split replays
// alone, and its batch under WithSize. Long sessions are added to these.
type sizes struct{ maxT, maxReps, budget, singles, batch int }

var (
	fullSizes  = sizes{maxT: 1000, maxReps: 300, budget: 8_000, singles: 8, batch: 40}
	quickSizes = sizes{maxT: 300, maxReps: 100, budget: 2_000, singles: 4, batch: 12}
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
	cfg config
}

func newPlan(cfg config, check string) *plan {
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

// arms draws a number of arms: WithSize's, else uniform in 2..20.
func (p *plan) arms() int {
	if p.cfg.fixed != nil {
		return p.cfg.fixed.arms
	}
	return minArms + p.r.IntN(maxArms-minArms+1)
}

// reps draws the replication indices of a session of n: contiguous from
// 0 half the time (a run's first batch), else from anywhere (a later
// batch, a shard).
func (p *plan) reps(n int) []uint64 {
	first := 0
	if p.r.IntN(2) == 1 {
		first = p.intIn(1, maxFirst-n)
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
// rounds after the forced ones and at most maxT/d.div, and d.minReps or
// more replications within the budget, or WithSize's sizes.
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
		horizon = p.intIn(lo, max(lo, sz.maxT/d.div))
		n = p.intIn(d.minReps, max(d.minReps, min(sz.maxReps, sz.budget/horizon)))
	}
	return spec{arms: k, horizon: horizon, initPulls: d.initPulls, reps: p.reps(n), seed: p.policySeed(), params: p.cfg.params}
}

// long draws a long session of n replications: longMin..longMax rounds.
func (p *plan) long(n int) spec {
	return p.sized(n, longMin+p.r.IntN(longMax-longMin+1))
}

// mid draws a session of n replications and midMin..longMax rounds,
// log-uniformly.
func (p *plan) mid(n int) spec { return p.sized(n, p.intIn(midMin, longMax)) }

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
	fmt.Fprintf(&b, " seed %s", FormatSeed(s.seed))
	return b.String()
}
