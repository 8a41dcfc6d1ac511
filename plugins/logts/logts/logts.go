// Package logts implements Thompson sampling for logistic rewards with a
// diagonal Laplace approximation of the posterior (Chapelle & Li, "An
// empirical evaluation of Thompson sampling", NeurIPS 2011, Algorithm 3,
// "regularized logistic regression with batch updates", here with batches
// of one observation), for the regretbench SDK. It models Bernoulli
// rewards: P(r = 1 | x) = sigmoid(w·x).
//
// Each model keeps a Gaussian posterior with diagonal precision: mean m,
// precisions q, prior m = 0, q_i = lambda. Each round draws w~_i from
// N(m_i, alpha²/q_i) and pulls the arm scoring highest, w~·x (ties to the
// lowest index; the sigmoid is monotone). The pulled arm's model then takes
// the reward r: the new mean is the minimiser of
//
//	½ sum_i q_i (w_i − m_i)² − r·log p(w) − (1 − r)·log(1 − p(w)),
//	p(w) = sigmoid(w·x),
//
// (the paper's objective, with r in {0, 1} for its y in {−1, 1}), and the
// precision gains the loss's curvature there, q_i += x_i²·p(1 − p). The
// minimiser lies on the line m + beta·Q⁻¹x (its gradient condition), so
// the paper's Newton iterations, each of which stays on that line, reduce
// to Newton's method on the scalar beta: a few steps of O(1) after an O(d)
// set-up, to a relative change below 1e-12.
//
// Context shapes: shared contexts (Dim features for all arms) get one
// model per arm; per-arm features (ContextShape.PerArm) one model for all
// arms and one draw a round. With intercept (default true) each model has
// a bias weight on a constant feature 1 appended to the context.
//
// Parameters: lambda (default 1), the prior precision (the paper's
// regulariser); intercept (default true); alpha (default 1), a multiplier of the draws' standard
// deviation, 1 being the Laplace posterior (the paper's experiments on
// display advertising also report a shrunk posterior, alpha < 1).
//
// Regret: Chapelle & Li give no bound; the approximation is a heuristic
// whose strength they measured on display advertising and news data.
// Kveton, Zaheer, Szepesvári, Li, Ghavamzadeh & Boutilier ("Randomized
// exploration in generalized linear bandits", AISTATS 2020) prove
// O~(d sqrt T)-type bounds for Thompson sampling with the full Laplace
// approximation (their GLM-TSL); no bound covers the diagonal one.
//
// The probability of the chosen arm has no closed form: the policy reports
// 0 ("not said"). Randomness comes from Replica.Rand only (a normal.Source
// seeded from it). Select and Observe do not allocate.
package logts

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/normal"
	"github.com/regretbench/regretbench/plugins/internal/ridge"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the logts policy.
var Params = []sdk.Param{
	{Name: "lambda", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
		Doc: "prior precision of every weight (the paper's regulariser)"},
	{Name: "alpha", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
		Doc: "multiplier of the posterior draws' standard deviation (1 = the Laplace posterior)"},
	ridge.InterceptParam,
}

// Model is a logistic regression with a diagonal Gaussian (Laplace)
// posterior: mean M, precisions Q.
type Model struct {
	M, Q []float64
	qx   []float64 // scratch: Q⁻¹x
}

// NewModel returns the prior N(0, I/lambda) of dimension d.
func NewModel(d int, lambda float64) *Model {
	buf := make([]float64, 3*d)
	m := &Model{M: buf[:d:d], Q: buf[d : 2*d : 2*d], qx: buf[2*d:]}
	for i := range m.Q {
		m.Q[i] = lambda
	}
	return m
}

// maxNewton bounds the Newton iterations of an update; they converge
// quadratically, in 3 to 6 steps on the shipped datasets' scales.
const maxNewton = 50

// Update takes reward r (in [0, 1]; a Bernoulli outcome) at features x:
// the minimiser of the regularised log-loss becomes the mean and the
// precisions gain its curvature. It returns the Newton steps taken.
func (m *Model) Update(x []float64, r float64) int {
	x = x[:len(m.M)]
	var s0, v float64 // m·x and xᵀQ⁻¹x
	for i, xi := range x {
		m.qx[i] = xi / m.Q[i]
		s0 += m.M[i] * xi
		v += xi * m.qx[i]
	}
	// Root of h(beta) = beta − r + sigmoid(s0 + beta·v), increasing in
	// beta (h' = 1 + v·p(1−p) ≥ 1), from beta = 0.
	beta, steps := 0.0, 0
	for steps < maxNewton {
		steps++
		p := sigmoid(s0 + beta*v)
		step := (beta - r + p) / (1 + v*p*(1-p))
		beta -= step
		if math.Abs(step) <= 1e-12*(1+math.Abs(beta)) {
			break
		}
	}
	for i := range m.M {
		m.M[i] += beta * m.qx[i]
	}
	p := sigmoid(s0 + beta*v)
	c := p * (1 - p)
	for i, xi := range x {
		m.Q[i] += xi * xi * c
	}
	return steps
}

// Draw writes w~ = M + alpha·z/sqrt(Q) to z (standard normals in, the draw
// out).
func (m *Model) Draw(z []float64, alpha float64) {
	for i := range m.M {
		z[i] = m.M[i] + alpha*z[i]/math.Sqrt(m.Q[i])
	}
}

func sigmoid(s float64) float64 {
	if s >= 0 {
		return 1 / (1 + math.Exp(-s))
	}
	e := math.Exp(s)
	return e / (1 + e)
}

// Policy is logistic Thompson sampling for one replication.
type Policy struct {
	k, d      int // arms, and features per context (per arm with perArm)
	perArm    bool
	intercept bool
	models    []*Model
	alpha     float64
	src       *normal.Source
	z         []float64
	xbuf      []float64 // an arm's features and the constant 1, with intercept
}

// New builds the logistic Thompson sampling policy of one replication.
func New(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
	lambda, alpha := s.Params.Float("lambda"), s.Params.Float("alpha")
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("logts: lambda must be finite and > 0, got %v", lambda)
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("logts: alpha must be finite and > 0, got %v", alpha)
	}
	if s.Arms < 1 {
		return nil, fmt.Errorf("logts: need at least one arm, got %d", s.Arms)
	}
	if !s.Context.Contextual() {
		return nil, fmt.Errorf("logts: a contextual policy: the session has no context (a context-free scenario)")
	}
	if s.Family != sdk.Bernoulli {
		return nil, fmt.Errorf("logts: models Bernoulli rewards (a logistic likelihood); the scenario's family is %s", s.Family)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("logts: replica %d has no random source", r.Index)
	}
	d := s.Context.Dim
	p := &Policy{k: s.Arms, d: d, perArm: s.Context.PerArm, intercept: ridge.Intercept(s.Params), alpha: alpha,
		src: normal.New(r.Rand.Uint64())}
	md := d
	if p.intercept {
		md = d + 1
		p.xbuf = make([]float64, md)
		p.xbuf[d] = 1
	}
	p.z = make([]float64, md)
	n := s.Arms
	if p.perArm {
		n = 1
	}
	for range n {
		p.models = append(p.models, NewModel(md, lambda))
	}
	return p, nil
}

func (p *Policy) model(a int) *Model {
	if p.perArm {
		return p.models[0]
	}
	return p.models[a]
}

// x is arm a's features as its model sees them (see ridge.Bank.X).
func (p *Policy) x(x []float64, a int) []float64 {
	xa := x[:p.d]
	if p.perArm {
		xa = x[a*p.d : (a+1)*p.d]
	}
	if p.intercept {
		copy(p.xbuf, xa)
		return p.xbuf
	}
	return xa
}

func (p *Policy) draw(a int) {
	p.src.Fill(p.z)
	p.model(a).Draw(p.z, p.alpha)
}

// Select draws the weights and returns the arm that scores highest under
// them, with probability 0 (not said).
func (p *Policy) Select(t int, x []float64) (int, float64) {
	if p.perArm {
		p.draw(0)
	}
	best, bestV := 0, math.Inf(-1)
	for a := range p.k {
		if !p.perArm {
			p.draw(a)
		}
		xa := p.x(x, a)
		var s float64
		for i, w := range p.z {
			s += w * xa[i]
		}
		if s > bestV || a == 0 {
			best, bestV = a, s
		}
	}
	return best, 0
}

// Observe updates the pulled arm's model with the reward.
func (p *Policy) Observe(t int, x []float64, arm int, reward float64) {
	p.model(arm).Update(p.x(x, arm), reward)
}
