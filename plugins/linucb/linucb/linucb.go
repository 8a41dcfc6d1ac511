// Package linucb implements LinUCB with disjoint linear models (Li, Chu,
// Langford & Schapire, "A contextual-bandit approach to personalized news
// article recommendation", WWW 2010, Algorithm 1) for the regretbench SDK.
//
// Each arm a keeps a ridge regression of its reward on the context
// (plugins/internal/ridge): A_a = lambda·I + sum x xᵀ over the rounds it was
// pulled, b_a = sum r·x, theta_a = A_a⁻¹b_a. Round t pulls
//
//	argmax_a  theta_a·x + alpha·sqrt(xᵀ A_a⁻¹ x),
//
// ties to the lowest index. The paper's alpha is 1 + sqrt(ln(2/delta)/2)
// for confidence 1 − delta; the parameter alpha (default 1) is that
// multiplier, and lambda (default 1; the paper's 1) the ridge penalty.
// With intercept (default true) every model also has a bias weight on a
// constant feature 1 appended to the context (the paper's features include
// a constant one; plugins/internal/ridge.Bank).
//
// Context shapes: shared contexts (Dim features for all arms) get the
// paper's disjoint model, one regression per arm; per-arm features
// (ContextShape.PerArm) get one regression shared by the arms, index
// theta·x_a + alpha·sqrt(x_aᵀA⁻¹x_a), the form whose analysis is OFUL's
// (below). The paper's hybrid model (shared and per-arm coefficients
// together) is not implemented. Any reward family is accepted: the model is
// a regression, not a likelihood.
//
// Regret: Li et al. prove no bound for LinUCB as stated. Chu, Li, Reyzin &
// Schapire ("Contextual bandits with linear payoff functions", AISTATS
// 2011) prove O(sqrt(T d ln³(K T ln(T)/delta))) for SupLinUCB, which runs
// LinUCB's index on independent phases of the data; Abbasi-Yadkori, Pál &
// Szepesvári ("Improved algorithms for linear stochastic bandits", NeurIPS
// 2011) prove O(d sqrt(T) log T) for the shared-parameter index when alpha
// grows as their confidence radius beta_t (about sqrt(d log t)). Applied
// arm by arm, the same elliptical-potential argument gives the disjoint
// model O~(d sqrt(K T)). For a constant alpha, as here and in the paper's
// experiments (which tune it), none of these bounds is proven.
//
// The policy is deterministic: it uses no randomness and reports
// probability 1. Select and Observe do not allocate; each costs O(K d²)
// and O(d²). A replication holds K·d² float64s (one d² with per-arm
// features), d counting the intercept: 70 KB at d = 16, K = 26 (letter),
// 0.8 MB at d = 180, K = 3 (DNA), but 50 MB at d = 784, K = 10.
package linucb

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/ridge"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the linucb policy.
var Params = []sdk.Param{
	{Name: "alpha", Type: sdk.Float, Default: 1.0, Min: sdk.Inclusive(0),
		Doc: "width multiplier of the confidence bound, theta.x + alpha*sqrt(x' A^-1 x) (the paper's 1 + sqrt(ln(2/delta)/2)); 0 is greedy"},
	{Name: "lambda", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
		Doc: "ridge penalty: A starts at lambda*I"},
	ridge.InterceptParam,
}

// Policy is LinUCB for one replication.
type Policy struct {
	bank  *ridge.Bank
	alpha float64
}

// New builds the LinUCB policy of one replication.
func New(s sdk.Session, _ sdk.Replica) (sdk.ContextualPolicy, error) {
	alpha, lambda := s.Params.Float("alpha"), s.Params.Float("lambda")
	if !(alpha >= 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("linucb: alpha must be finite and >= 0, got %v", alpha)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("linucb: lambda must be finite and > 0, got %v", lambda)
	}
	bank, err := ridge.NewBank("linucb", s, lambda)
	if err != nil {
		return nil, err
	}
	return &Policy{bank: bank, alpha: alpha}, nil
}

// Index is arm a's upper confidence bound in context x.
func (p *Policy) Index(x []float64, a int) float64 {
	m, xa := p.bank.Model(a), p.bank.X(x, a)
	ucb := m.Mean(xa)
	if p.alpha != 0 {
		// max: rounding may leave a width of −1e-17 where it is 0.
		ucb += p.alpha * math.Sqrt(math.Max(0, m.Width(xa)))
	}
	return ucb
}

// Select returns the arm of the largest index, the lowest on ties, with
// probability 1.
func (p *Policy) Select(t int, x []float64) (int, float64) {
	best, bestV := 0, p.Index(x, 0)
	for a := 1; a < p.bank.K; a++ {
		if v := p.Index(x, a); v > bestV {
			best, bestV = a, v
		}
	}
	return best, 1
}

// Observe adds the reward to the pulled arm's regression.
func (p *Policy) Observe(t int, x []float64, arm int, reward float64) {
	p.bank.Observe(x, arm, reward)
}
