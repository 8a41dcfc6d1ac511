package remaxgrad

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/normal"
	"github.com/regretbench/regretbench/sdk"
)

// Policy is one replication's ReMaxGrad policy (Algorithm 2). It implements
// sdk.Policy and sdk.Diagnoser.
type Policy struct {
	k   int
	src *normal.Source // this replication's normals and uniforms
	v1  float64        // posterior variance after one pull: c2 * sd^2

	n, sum, mean, sd []float64 // per arm: pulls, reward sum, muhat, posterior sd
	unpulled         int       // arms with no pull yet

	opt      *Optimizer
	steps    int  // Adam steps of the last Select
	selected bool // whether the optimizer ran in the last Select

	// tsShare is the robust variant's share of Thompson-sampling draws
	// (TSShare; 0 for the paper variant), draw its K normals.
	tsShare float64
	draw    []float64
}

var (
	_ sdk.Policy    = (*Policy)(nil)
	_ sdk.Diagnoser = (*Policy)(nil)
	_ sdk.Factory   = New
)

// New builds the ReMaxGrad policy of one replication. The posterior uses
// the known noise sd for gaussian rewards (an error if it is not known) and
// 0.5 for bernoulli rewards (sdk.Session.RewardSD).
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	return NewPolicy(s, r)
}

// NewPolicy is New with the concrete result type.
func NewPolicy(s sdk.Session, r sdk.Replica) (*Policy, error) {
	c, err := ConfigFromParams(s.Params)
	if err != nil {
		return nil, fmt.Errorf("remaxgrad: %w", err)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("remaxgrad: %w", err)
	}
	if s.Arms < 1 {
		return nil, fmt.Errorf("remaxgrad: %d arms", s.Arms)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("remaxgrad: replica %d has no random source", r.Index)
	}
	k := s.Arms
	p := &Policy{
		k: k, src: normal.New(r.Rand.Uint64()), v1: c.VarianceInflation * sd * sd,
		n: make([]float64, k), sum: make([]float64, k),
		mean: make([]float64, k), sd: make([]float64, k),
		unpulled: k,
		opt:      NewOptimizer(k, c),
	}
	if c.Variant == VariantRobust && c.TSShare > 0 {
		p.tsShare, p.draw = c.TSShare, make([]float64, k)
	}
	return p, nil
}

// Select runs one round of Algorithm 2 and draws the arm from softmax(z).
// The robust variant instead plays, with probability TSShare, the best arm
// of one fresh posterior sample (a Thompson-sampling draw; see the package
// doc). Arms never pulled have no (improper-prior) posterior; the host
// pulls each once first, and should it not, Select pulls the first such
// arm.
func (p *Policy) Select(t int) int {
	p.selected = false
	if p.unpulled > 0 {
		for i, n := range p.n {
			if n == 0 {
				return i
			}
		}
	}
	if p.k == 1 {
		return 0
	}
	p.opt.DrawSamples(p.src, p.mean, p.sd)
	p.steps, _ = p.opt.Run()
	p.selected = true
	pi := p.opt.CurrentPolicy()
	u := p.src.Float64()
	if p.tsShare > 0 {
		if u < p.tsShare {
			return p.thompson()
		}
		u = (u - p.tsShare) / (1 - p.tsShare) // uniform on [0, 1) again
	}
	last := 0
	for i, x := range pi {
		if x > 0 {
			last = i
		}
		u -= x
		if u < 0 {
			return i
		}
	}
	return last // u beyond the rounded total mass
}

// thompson returns the best arm of one posterior sample theta_i = muhat_i
// + sd_i N(0,1), the lowest index on ties: arm i with the probability the
// posterior gives it of being the best.
func (p *Policy) thompson() int {
	p.src.Fill(p.draw)
	best, bestV := 0, math.Inf(-1)
	for i, z := range p.draw {
		if v := p.mean[i] + p.sd[i]*z; v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Observe updates arm's empirical mean and posterior sd.
func (p *Policy) Observe(t, arm int, reward float64) {
	if p.n[arm] == 0 {
		p.unpulled--
	}
	p.n[arm]++
	p.sum[arm] += reward
	p.mean[arm] = p.sum[arm] / p.n[arm]
	p.sd[arm] = math.Sqrt(p.v1 / p.n[arm])
}

// Diagnose writes kkt_gap, adam_steps and support_size (see Diagnostics) of
// the last Select. Before the optimizer has run (or when a Select only
// pulled an unpulled arm, or K = 1) it reports a zero gap, zero steps and
// the support of softmax of the current logits.
func (p *Policy) Diagnose(out []float64) {
	var gap, steps float64
	if p.selected {
		gap, steps = p.opt.ExitGap(), float64(p.steps)
	}
	var support float64
	for _, x := range p.opt.CurrentPolicy() {
		if x > SupportThreshold {
			support++
		}
	}
	vals := [...]float64{gap, steps, support}
	copy(out, vals[:])
}

// Optimizer returns the policy's optimizer, for inspection.
func (p *Policy) Optimizer() *Optimizer { return p.opt }
