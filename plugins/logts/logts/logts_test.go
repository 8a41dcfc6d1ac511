package logts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
	"github.com/regretbench/regretbench/plugins/internal/normal"
	"github.com/regretbench/regretbench/sdk"
)

// TestUpdateHand: in dimension 1 from the prior N(0, 1), reward 1 at
// x = 1: the mean solves w = 1 − sigmoid(w) (found here by bisection) and
// the precision becomes 1 + p(1 − p), p = sigmoid(w).
func TestUpdateHand(t *testing.T) {
	m := NewModel(1, 1)
	m.Update([]float64{1}, 1)
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid-(1-sigmoid(mid)) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	w := (lo + hi) / 2
	if math.Abs(m.M[0]-w) > 1e-12 {
		t.Errorf("mean %v, want %v", m.M[0], w)
	}
	if p := sigmoid(w); math.Abs(m.Q[0]-(1+p*(1-p))) > 1e-12 {
		t.Errorf("precision %v, want %v", m.Q[0], 1+p*(1-p))
	}
}

// TestUpdateAgainstNewton: after a sequence of updates, each mean is the
// minimiser of Chapelle & Li's regularised objective as the textbook
// d-dimensional Newton method finds it (the dense Hessian Q + p(1−p)xxᵀ
// solved by gonum), not through the scalar reduction; and the precisions
// gained the curvature there.
func TestUpdateAgainstNewton(t *testing.T) {
	const d = 4
	rng := rand.New(rand.NewPCG(3, 4))
	m := NewModel(d, 2)
	x := make([]float64, d)
	for step := range 30 {
		for i := range x {
			x[i] = 2 * rng.NormFloat64()
		}
		r := float64(rng.IntN(2))
		if step == 29 {
			r = 0.3 // a fractional target is the same objective
		}
		prevM := append([]float64(nil), m.M...)
		prevQ := append([]float64(nil), m.Q...)
		if steps := m.Update(x, r); steps >= maxNewton {
			t.Errorf("step %d: Newton did not converge in %d steps", step, steps)
		}
		w := mat.NewVecDense(d, append([]float64(nil), prevM...))
		xv := mat.NewVecDense(d, x)
		for range 100 {
			p := sigmoid(mat.Dot(w, xv))
			g := mat.NewVecDense(d, nil)
			h := mat.NewSymDense(d, nil)
			for i := range d {
				g.SetVec(i, prevQ[i]*(w.AtVec(i)-prevM[i])+(p-r)*x[i])
				h.SetSym(i, i, prevQ[i])
			}
			h.SymRankOne(h, p*(1-p), xv)
			var dw mat.VecDense
			if err := dw.SolveVec(h, g); err != nil {
				t.Fatal(err)
			}
			w.SubVec(w, &dw)
			if mat.Norm(&dw, 2) < 1e-15 {
				break
			}
		}
		var s float64
		for i := range d {
			if math.Abs(m.M[i]-w.AtVec(i)) > 1e-10 {
				t.Errorf("step %d: mean[%d] = %v, d-dimensional Newton's %v", step, i, m.M[i], w.AtVec(i))
			}
			s += m.M[i] * x[i]
		}
		p := sigmoid(s)
		for i := range d {
			if want := prevQ[i] + x[i]*x[i]*p*(1-p); math.Abs(m.Q[i]-want) > 1e-12*want {
				t.Errorf("step %d: precision[%d] = %v, want %v", step, i, m.Q[i], want)
			}
		}
	}
}

func session(k, d int, perArm bool, alpha float64) sdk.Session {
	return sdk.Session{Arms: k, Horizon: 100, Family: sdk.Bernoulli,
		Params: sdk.Params{"lambda": 1.0, "alpha": alpha, "intercept": false}, Context: sdk.ContextShape{Dim: d, PerArm: perArm}}
}

func newPolicy(t testing.TB, s sdk.Session, seed uint64) *Policy {
	t.Helper()
	p, err := New(s, sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Policy)
}

// TestHandDraws: the draws are m + alpha·z/sqrt(q) with z the normals of
// the policy's source (replayed here from the same seed), and Select
// pulls the arm of the largest score.
func TestHandDraws(t *testing.T) {
	for _, perArm := range []bool{false, true} {
		const alpha, seed = 0.7, 8
		p := newPolicy(t, session(2, 1, perArm, alpha), seed)
		src := normal.New(rand.New(rand.NewPCG(seed, 1)).Uint64())
		if perArm {
			p.Observe(1, []float64{3, 1}, 1, 1)
		} else {
			p.Observe(1, []float64{1}, 1, 1)
		}
		z := make([]float64, 1)
		for round := range 50 {
			x := []float64{0.8, -0.6}
			var s0, s1 float64
			if perArm {
				src.Fill(z)
				m := p.models[0]
				w := m.M[0] + alpha*z[0]/math.Sqrt(m.Q[0])
				s0, s1 = w*x[0], w*x[1]
			} else {
				x = x[:1]
				src.Fill(z)
				w0 := alpha * z[0] // the untouched prior N(0, 1)
				src.Fill(z)
				m := p.models[1]
				w1 := m.M[0] + alpha*z[0]/math.Sqrt(m.Q[0])
				s0, s1 = w0*x[0], w1*x[0]
			}
			want := 0
			if s1 > s0 {
				want = 1
			}
			if arm, prob := p.Select(2+round, x); arm != want || prob != 0 {
				t.Fatalf("per-arm %v, round %d: Select = (%d, %v), want (%d, 0)", perArm, round, arm, prob, want)
			}
		}
	}
}

// TestRefusesGaussian: a logistic model is refused on gaussian rewards.
func TestRefusesGaussian(t *testing.T) {
	s := session(2, 2, false, 1)
	s.Family, s.NoiseSD, s.NoiseKnown = sdk.Gaussian, 1, true
	if _, err := New(s, sdk.Replica{Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Error("a gaussian session was accepted")
	}
}

// TestRegret: on synthetic logistic-Bernoulli problems the regret over
// 4,000 rounds is sublinear and far below uniform play's.
func TestRegret(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k, d   int
		perArm bool
	}{
		{"shared", 5, 6, false},
		{"per-arm", 10, 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const T = 4000
			prob := ctxsim.NewLogistic(tc.k, tc.d, tc.perArm, 6, 3)
			p := newPolicy(t, prob.Session(T, sdk.Params{"lambda": 1.0, "alpha": 1.0}), 4)
			res := prob.Run(p, T, 5)
			first, second := res.Cumulative(0, T/2), res.Cumulative(T/2, T)
			uniform := prob.Uniform(20000, 9) * T
			t.Logf("regret: first half %.1f, second half %.1f, uniform %.1f", first, second, uniform)
			if !(second < first) {
				t.Errorf("second half's regret %.1f is not below the first's %.1f", second, first)
			}
			if limit := 0.4 * uniform; first+second > limit {
				t.Errorf("regret %.1f, want below 0.4 times the uniform policy's (%.1f)", first+second, limit)
			}
		})
	}
}

// TestNoAllocs: a round allocates nothing.
func TestNoAllocs(t *testing.T) {
	for _, perArm := range []bool{false, true} {
		const k, d = 26, 16
		p := newPolicy(t, session(k, d, perArm, 1), 1)
		ctxsim.CheckNoAllocs(t, fmt.Sprintf("per-arm %v", perArm), p, sdk.ContextShape{Dim: d, PerArm: perArm}.Width(k), 1)
	}
}

// BenchmarkRound is one round, Select and Observe, in process, at d = 16,
// K = 26 with the default intercept.
func BenchmarkRound(b *testing.B) {
	s := session(26, 16, false, 1)
	s.Params["intercept"] = true
	ctxsim.BenchRound(b, newPolicy(b, s, 1), 16)
}
