package env

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/internal/seed"
)

// ContextStreamsVersion and SecretContextStreamsVersion name the way a
// contextual environment's streams (parameters, contexts, row orders,
// reward noise, relabellings and feature transforms) are derived from an
// integer and from a secret seed. Results files record them as
// Streams does for context-free ones.
const (
	ContextStreamsVersion       = "ctx-sha256-v1"
	SecretContextStreamsVersion = "ctx-hmac-sha256-v1"
)

// ContextStreams is the streams version results files record for a
// contextual scenario of seed s.
func ContextStreams(s seed.Seed) string {
	if s.Secret() {
		return SecretContextStreamsVersion
	}
	return ContextStreamsVersion
}

// The synthetic models (ContextSpec.Model).
const (
	LinearGaussian    = "linear_gaussian"
	LogisticBernoulli = "logistic_bernoulli"
)

// SealedReflections is the number of Householder reflections of a sealed
// run's feature transform (at most the number of features).
const SealedReflections = 8

// ContextSpec is what a contextual environment is: a dataset (Data set,
// Model "") or a synthetic model.
type ContextSpec struct {
	// Model is LinearGaussian or LogisticBernoulli; "" for a dataset.
	Model string
	// Arms K, Dim d and PerArm of a model (a dataset sets its own).
	Arms, Dim int
	PerArm    bool
	// NoiseSD is LinearGaussian's reward noise sd.
	NoiseSD float64
	// Data is the dataset, standardised; nil for a model. The environment
	// only reads it.
	Data *dataset.Dataset
	// DataID identifies the dataset in the streams' key: "dataset:NAME"
	// for a shipped one, "file:SHA256" for a private one.
	DataID string
	// Cost is a dataset's cost matrix, K x K in the dataset's class
	// order, each value in [0, 1]: pulling arm a on a row of class y
	// gives reward 1 - Cost[y][a] and regret Cost[y][a] - min_b Cost[y][b].
	// nil is the 0/1 reward: 1 for the right class, else 0. It is not part
	// of the streams' key: the same seed plays the same rows, in the same
	// order and relabelling, whatever the costs.
	Cost [][]float64
}

// Contextual is a contextual bandit environment (docs/contextual.md):
// each round each replication sees a context, pulls an arm and gets a
// reward; regret is the expected reward of the best arm for that context
// minus that of the arm pulled.
//
// Every draw of replication r comes from streams keyed by the scenario
// seed, the environment (ContextSpec, the dataset by name or checksum)
// and r alone, each stream drawn from a fixed number of times per round
// whatever the arm pulled: the contexts and the reward draws of
// replication r are the same for every policy and every batch or shard
// (common random numbers). Under a secret seed the keys are HMACs keyed by
// the secret, and a dataset's classes are relabelled and its features
// transformed per replication (Stream).
type Contextual struct {
	spec   ContextSpec
	cost   []float64 // Cost, row by row; nil for the 0/1 reward
	best   []int32   // with a cost: each class's cheapest arm (the first among ties)
	k, d   int
	width  int
	secret bool
	root   [sha256.Size]byte
}

// Domain tags of the contextual streams' root key.
const (
	tagContextRoot       = "regretbench/contexts/v1\x00"
	tagSecretContextRoot = "regretbench/secret/contexts/v1\x00"
)

// The purposes of a replication's streams: each is keyed by the root, the
// purpose and the replication.
const (
	purposeParams   = 1 // a model's parameter
	purposeContexts = 2 // a model's contexts, a dataset's row order
	purposeRewards  = 3 // the reward noise, one draw per round
	purposeRelabel  = 4 // a sealed run's relabelling of the classes
	purposeFeatures = 5 // a sealed run's feature transform
)

// NewContextual returns the contextual environment of spec whose streams
// are keyed by the scenario seed s.
func NewContextual(spec ContextSpec, s seed.Seed) (*Contextual, error) {
	e := &Contextual{spec: spec}
	switch {
	case spec.Model == "" && spec.Data == nil:
		return nil, fmt.Errorf("env: a contextual environment needs a model or a dataset")
	case spec.Model == "":
		d := spec.Data
		if d.N < 1 || d.K < 2 || d.D < 1 || len(d.X) != d.N*d.D || len(d.Y) != d.N {
			return nil, fmt.Errorf("env: dataset %s: %d rows, %d classes, %d features: malformed", d.Name, d.N, d.K, d.D)
		}
		e.k, e.d, e.width = d.K, d.D, d.D
		e.spec.PerArm = false
		if err := e.setCost(spec.Cost); err != nil {
			return nil, fmt.Errorf("env: dataset %s: %w", d.Name, err)
		}
	case spec.Cost != nil:
		return nil, fmt.Errorf("env: %s: a cost matrix is for a dataset only", spec.Model)
	case spec.Model == LinearGaussian || spec.Model == LogisticBernoulli:
		if spec.Arms < 2 || spec.Dim < 1 {
			return nil, fmt.Errorf("env: %s: %d arms, dimension %d", spec.Model, spec.Arms, spec.Dim)
		}
		if spec.Model == LinearGaussian && !(spec.NoiseSD > 0) {
			return nil, fmt.Errorf("env: %s: noise sd %v, want > 0", spec.Model, spec.NoiseSD)
		}
		e.k, e.d, e.width = spec.Arms, spec.Dim, spec.Dim
		if spec.PerArm {
			e.width = spec.Arms * spec.Dim
		}
	default:
		return nil, fmt.Errorf("env: unknown model %q", spec.Model)
	}
	var h hash.Hash
	if key, ok := s.Key(); ok {
		e.secret = true
		h = hmac.New(sha256.New, key[:])
		h.Write([]byte(tagSecretContextRoot))
	} else {
		n, _ := s.Uint64()
		h = sha256.New()
		h.Write([]byte(tagContextRoot))
		binary.Write(h, binary.LittleEndian, n)
	}
	h.Write([]byte(spec.Model))
	h.Write([]byte{0})
	h.Write([]byte(spec.DataID))
	h.Write([]byte{0})
	perArm := uint64(0)
	if e.spec.PerArm {
		perArm = 1
	}
	for _, x := range []uint64{uint64(e.k), uint64(e.d), perArm, math.Float64bits(spec.NoiseSD)} {
		binary.Write(h, binary.LittleEndian, x)
	}
	h.Sum(e.root[:0])
	return e, nil
}

// setCost checks and keeps a dataset's cost matrix, and finds each
// class's cheapest arm.
func (e *Contextual) setCost(cost [][]float64) error {
	if cost == nil {
		return nil
	}
	if len(cost) != e.k {
		return fmt.Errorf("cost matrix of %d rows for %d classes", len(cost), e.k)
	}
	e.cost = make([]float64, 0, e.k*e.k)
	e.best = make([]int32, e.k)
	for y, row := range cost {
		if len(row) != e.k {
			return fmt.Errorf("cost matrix row %d: %d values for %d classes", y, len(row), e.k)
		}
		for a, v := range row {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("cost[%d][%d] = %v, want a value in [0, 1]", y, a, v)
			}
			if v < row[e.best[y]] {
				e.best[y] = int32(a)
			}
		}
		e.cost = append(e.cost, row...)
	}
	return nil
}

// K is the number of arms, D the number of features per context (per arm
// with per-arm features), Width the values of one replication's context.
func (e *Contextual) K() int     { return e.k }
func (e *Contextual) D() int     { return e.d }
func (e *Contextual) Width() int { return e.width }

// Sealed reports whether the environment is keyed by a secret seed: its
// dataset's classes are then relabelled and its features transformed.
func (e *Contextual) Sealed() bool { return e.secret }

// Logged describes the round Next drew, for the rounds log (package
// roundslog): the dataset row shown, as its index in the dataset (-1 for
// a model); arm a's class, the arm in the environment's labelling (a
// itself unless a sealed run relabelled the classes); and the oracle's
// expected reward, that of the best arm.
func (s *ContextStream) Logged(a int) (row, class int, oracle float64) {
	if s.e.spec.Data == nil {
		return -1, a, s.mu[s.best]
	}
	row, class = int(s.order[s.t-1]), a
	for c, b := range s.relabel {
		if int(b) == a {
			class = c
		}
	}
	oracle, _ = s.Pull(s.best) // a dataset's reward draws nothing
	return row, class, oracle
}

// rng is replication rep's stream for purpose: a PCG seeded with an HMAC
// keyed by the root over the purpose and rep.
func (e *Contextual) rng(rep uint64, purpose uint64) *rand.Rand {
	return rand.New(macPCG(hmac.New(sha256.New, e.root[:]), purpose, rep))
}

// ContextStream is one replication of a contextual environment. Next
// draws round t's context; Pull then gives the reward and regret of an
// arm in that round. It is used by one goroutine.
type ContextStream struct {
	e       *Contextual
	ctx     *rand.Rand // a model's contexts
	noise   *rand.Rand // one draw per round
	theta   []float64  // a model's parameter: K x d, or d with per-arm features
	mu      []float64  // the round's expected reward of every arm
	best    int        // the round's best arm
	draw    float64    // the round's reward draw: a normal or a uniform
	order   []int32    // a dataset's rows, in the order this replication plays them
	t       int        // rounds drawn
	label   int        // a dataset's round: the arm that is right
	class   int        // a dataset's round: the row's class, in the dataset's labels
	relabel []int32    // a sealed dataset: class -> arm
	unlabel []int32    // a sealed dataset with a cost: arm -> class
	house   [][]float64
	perm    []int32   // a sealed dataset: feature j of the output is feature perm[j]...
	signs   []float64 // ...times signs[j], then the reflections
}

// Stream returns replication rep's streams. On a dataset it draws the
// order of the rows at once (the first horizon of a random permutation);
// horizon must not exceed the rows.
func (e *Contextual) Stream(rep uint64, horizon int) *ContextStream {
	s := &ContextStream{e: e, noise: e.rng(rep, purposeRewards), mu: make([]float64, e.k)}
	if d := e.spec.Data; d != nil {
		// A partial Fisher-Yates shuffle: the first horizon positions of
		// a uniform random permutation of the rows.
		r := e.rng(rep, purposeContexts)
		idx := make([]int32, d.N)
		for i := range idx {
			idx[i] = int32(i)
		}
		n := min(horizon, d.N)
		for i := 0; i < n; i++ {
			j := i + r.IntN(d.N-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		s.order = append([]int32(nil), idx[:n]...)
		if e.secret {
			s.seal(rep)
		}
		return s
	}
	s.ctx = e.rng(rep, purposeContexts)
	// theta ~ N(0, I/d): <theta, x> has variance |theta|^2, about 1, for
	// x ~ N(0, I).
	pr := e.rng(rep, purposeParams)
	n := e.k * e.d
	if e.spec.PerArm {
		n = e.d
	}
	s.theta = make([]float64, n)
	sd := 1 / math.Sqrt(float64(e.d))
	for i := range s.theta {
		s.theta[i] = sd * pr.NormFloat64()
	}
	return s
}

// seal draws a sealed replication's relabelling (a uniform random
// permutation of the classes) and feature transform: a uniform random
// signed permutation of the features followed by SealedReflections
// Householder reflections (at most D) through uniformly random directions,
// an orthogonal map that keeps every distance and inner product.
func (s *ContextStream) seal(rep uint64) {
	e := s.e
	r := e.rng(rep, purposeRelabel)
	s.relabel = make([]int32, e.k)
	for i, j := range r.Perm(e.k) {
		s.relabel[i] = int32(j)
	}
	if e.cost != nil {
		s.unlabel = make([]int32, e.k)
		for c, a := range s.relabel {
			s.unlabel[a] = int32(c)
		}
	}
	f := e.rng(rep, purposeFeatures)
	s.perm = make([]int32, e.d)
	for i, j := range f.Perm(e.d) {
		s.perm[i] = int32(j)
	}
	s.signs = make([]float64, e.d)
	for i := range s.signs {
		s.signs[i] = 1
		if f.Uint64()&1 == 1 {
			s.signs[i] = -1
		}
	}
	if e.d < 2 {
		return
	}
	s.house = make([][]float64, min(SealedReflections, e.d))
	for h := range s.house {
		v := make([]float64, e.d)
		var nn float64
		for nn == 0 {
			nn = 0
			for i := range v {
				v[i] = f.NormFloat64()
				nn += float64(v[i] * v[i])
			}
		}
		inv := 1 / math.Sqrt(nn)
		for i := range v {
			v[i] *= inv
		}
		s.house[h] = v
	}
}

// Next draws the context of the next round into x (Width values) and
// prepares the round's rewards.
func (s *ContextStream) Next(x []float64) {
	e := s.e
	s.t++
	if d := e.spec.Data; d != nil {
		row := int(s.order[s.t-1])
		src := d.Row(row)
		s.class = d.Y[row]
		s.label = s.class
		if e.cost != nil {
			s.label = int(e.best[s.class])
		}
		if s.relabel != nil {
			s.label = int(s.relabel[s.label])
			for j, p := range s.perm {
				x[j] = s.signs[j] * src[p]
			}
			for _, v := range s.house {
				// x -= 2 <v, x> v
				var dot float64
				for j, vj := range v {
					dot += float64(vj * x[j])
				}
				dot *= 2
				for j, vj := range v {
					x[j] -= float64(dot * vj)
				}
			}
		} else {
			copy(x, src)
		}
		s.best = s.label
		s.draw = 0
		return
	}
	x = x[:e.width]
	for i := range x {
		x[i] = s.ctx.NormFloat64()
	}
	for a := range s.mu {
		var th, xa []float64
		if e.spec.PerArm {
			th, xa = s.theta, x[a*e.d:(a+1)*e.d]
		} else {
			th, xa = s.theta[a*e.d:(a+1)*e.d], x
		}
		var dot float64
		for j, v := range th {
			dot += float64(v * xa[j]) // no fused multiply-add: the same bits everywhere
		}
		if e.spec.Model == LogisticBernoulli {
			dot = 1 / (1 + math.Exp(-dot))
		}
		s.mu[a] = dot
	}
	s.best = 0
	for a, m := range s.mu {
		if m > s.mu[s.best] {
			s.best = a
		}
	}
	if e.spec.Model == LogisticBernoulli {
		s.draw = s.noise.Float64()
	} else {
		s.draw = s.noise.NormFloat64()
	}
}

// Best is the best arm of the round Next drew: the arm of the right class
// (with a cost matrix, of the cheapest class for the row's class, the
// first in class order among ties), or the arm of the largest expected
// reward (the first among ties).
func (s *ContextStream) Best() int { return s.best }

// Pull returns the reward of arm a in the round Next drew, and its regret:
// the expected reward of the best arm minus that of a (on a dataset, 1 -
// the reward; with a cost matrix, reward 1 - cost[y][class of a] and
// regret cost[y][class of a] - min_b cost[y][b], y the row's class and the
// class of a undoing a sealed run's relabelling).
func (s *ContextStream) Pull(a int) (reward, regret float64) {
	e := s.e
	switch {
	case e.cost != nil:
		c := a
		if s.unlabel != nil {
			c = int(s.unlabel[a])
		}
		row := e.cost[s.class*e.k : (s.class+1)*e.k]
		return 1 - row[c], row[c] - row[e.best[s.class]]
	case e.spec.Data != nil:
		if a == s.label {
			return 1, 0
		}
		return 0, 1
	case e.spec.Model == LogisticBernoulli:
		if s.draw < s.mu[a] {
			reward = 1
		}
	default:
		reward = s.mu[a] + float64(e.spec.NoiseSD*s.draw)
	}
	return reward, s.mu[s.best] - s.mu[a]
}

// Means are the expected rewards of the arms in the round Next drew (of a
// model; nil-valued for a dataset). The slice is the stream's own.
func (s *ContextStream) Means() []float64 { return s.mu }
