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
//
// With an intercept the models see each context with a constant feature 1
// appended (dimension Dim + 1), as Vowpal Wabbit, the bake-off's learner,
// adds one by default: without it a model of standardised features (mean
// 0) cannot learn an arm's base rate.
type Bank struct {
	K, D      int // arms, and features per context (per arm with PerArm)
	PerArm    bool
	Intercept bool
	models    []*Model
	xbuf      []float64 // an arm's features and the constant, with Intercept
}

// InterceptParam is the parameter every contextual baseline declares for
// its bank's intercept.
var InterceptParam = sdk.Param{Name: "intercept", Type: sdk.Bool, Default: true,
	Doc: "append a constant feature 1 to each context, a bias term in every model (Vowpal Wabbit's default)"}

// Intercept reads the intercept parameter: true where a hand-built Params
// (a test's) does not set it, as the declared default.
func Intercept(p sdk.Params) bool {
	if _, ok := p[InterceptParam.Name]; !ok {
		return true
	}
	return p.Bool(InterceptParam.Name)
}

// NewBank checks that s is a contextual session with at least one arm and
// returns its models, each with ridge penalty lambda and opts, and an
// intercept when s.Params's intercept says so. name prefixes the errors
// (the policy's name).
func NewBank(name string, s sdk.Session, lambda float64, opts ...Option) (*Bank, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("%s: need at least one arm, got %d", name, s.Arms)
	}
	if !s.Context.Contextual() {
		return nil, fmt.Errorf("%s: a contextual policy: the session has no context (a context-free scenario)", name)
	}
	b := &Bank{K: s.Arms, D: s.Context.Dim, PerArm: s.Context.PerArm, Intercept: Intercept(s.Params)}
	n := s.Arms
	if b.PerArm {
		n = 1
	}
	if b.Intercept {
		b.xbuf = make([]float64, b.D+1)
		b.xbuf[b.D] = 1
	}
	for range n {
		m, err := New(b.ModelDim(), lambda, opts...)
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

// ModelDim is the models' dimension: D, plus 1 with an intercept.
func (b *Bank) ModelDim() int {
	if b.Intercept {
		return b.D + 1
	}
	return b.D
}

// X is arm a's features in the round's context x (Width(K) values), as its
// model sees them: with an intercept, a copy followed by 1 in a buffer of
// the bank's that the next call overwrites.
func (b *Bank) X(x []float64, a int) []float64 {
	xa := x[:b.D]
	if b.PerArm {
		xa = x[a*b.D : (a+1)*b.D]
	}
	if b.Intercept {
		copy(b.xbuf, xa)
		return b.xbuf
	}
	return xa
}

// Observe adds arm a's reward r in context x to the arm's model.
func (b *Bank) Observe(x []float64, a int, r float64) { b.Model(a).Observe(b.X(x, a), r) }

// Means writes every arm's predicted reward in context x to out.
func (b *Bank) Means(x []float64, out []float64) {
	for a := range b.K {
		out[a] = b.Model(a).Mean(b.X(x, a))
	}
}
