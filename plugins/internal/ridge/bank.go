package ridge

import (
	"fmt"

	"github.com/regretbench/regretbench/sdk"
)

// Bank is the ridge models of one contextual session, in the two shapes
// the protocol has (sdk.ContextShape):
//
//   - shared contexts (Dim features seen by every arm): one model per arm,
//     the "disjoint" model of LinUCB, arm a's reward theta_a·x;
//   - per-arm features (PerArm: Dim features for each arm): one model for
//     all arms, arm a's reward theta·x_a, which learns across arms.
type Bank struct {
	K, D   int
	PerArm bool
	models []*Model
}

// NewBank checks that s is a contextual session with at least one arm and
// returns its models, each with ridge penalty lambda and opts. name
// prefixes the errors (the policy's name).
func NewBank(name string, s sdk.Session, lambda float64, opts ...Option) (*Bank, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("%s: need at least one arm, got %d", name, s.Arms)
	}
	if !s.Context.Contextual() {
		return nil, fmt.Errorf("%s: a contextual policy: the session has no context (a context-free scenario)", name)
	}
	b := &Bank{K: s.Arms, D: s.Context.Dim, PerArm: s.Context.PerArm}
	n := s.Arms
	if b.PerArm {
		n = 1
	}
	for range n {
		m, err := New(b.D, lambda, opts...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b.models = append(b.models, m)
	}
	return b, nil
}

// Model is the model that predicts arm a's reward.
func (b *Bank) Model(a int) *Model {
	if b.PerArm {
		return b.models[0]
	}
	return b.models[a]
}

// X is arm a's features in the round's context x (Width(K) values).
func (b *Bank) X(x []float64, a int) []float64 {
	if b.PerArm {
		return x[a*b.D : (a+1)*b.D]
	}
	return x[:b.D]
}

// Observe adds arm a's reward r in context x to the arm's model.
func (b *Bank) Observe(x []float64, a int, r float64) { b.Model(a).Observe(b.X(x, a), r) }

// Means writes every arm's predicted reward in context x to out.
func (b *Bank) Means(x []float64, out []float64) {
	for a := range b.K {
		out[a] = b.Model(a).Mean(b.X(x, a))
	}
}
