// Package offpolicy estimates, from the rounds log of a contextual run
// (bench run --rounds-log, package roundslog), the value of a target
// policy that was not run: the expected reward per round it would have
// had on the contexts the logging policy saw. This is logged-data, or
// off-policy, evaluation.
//
// Two estimators, both unbiased or consistent when the logging policy
// reported the probability of every arm it played and gave every arm the
// target may play a positive probability:
//
//   - IPS, inverse propensity scoring (the Horvitz-Thompson estimator:
//     Horvitz & Thompson, "A Generalization of Sampling Without
//     Replacement from a Finite Universe", JASA 1952): the mean of
//     w·r over the logged rounds, where r is the reward and w =
//     pi(a|x)/p the target's probability of the logged arm a over the
//     logging policy's p. Unbiased; its variance grows with the weights.
//   - SNIPS, self-normalised IPS (Swaminathan & Joachims, "The
//     Self-Normalized Estimator for Counterfactual Learning", NeurIPS
//     2015): sum of w·r over sum of w. Biased by O(1/n), consistent, and
//     usually of far smaller variance; invariant to a constant added to
//     every reward.
//
// Doubly robust estimation (Dudík, Langford & Li, "Doubly Robust Policy
// Evaluation and Learning", ICML 2011), which adds a reward model, is not
// here: a dataset's rows can be joined back to the log (Record.Row) to
// fit one outside bench.
//
// # Standard errors
//
// The rounds of one replication are not independent: the logging policy
// learns from them. The replications are: each plays its own row order
// (or draws) and its own policy seed. With two or more replications the
// standard errors are therefore computed across replications, each
// estimator as a ratio of per-replication sums (sum of w·r over the
// rounds, IPS; sum of w·r over sum of w, SNIPS) with the delta method:
// SE² = Σ_r (A_r - V·B_r)² / (R(R-1)·mean(B)²), where A_r and B_r are
// replication r's numerator and denominator sums and V the estimate. With
// one replication they treat the rounds as independent, which understates
// them when the policy adapts.
//
// # The target policy
//
// A Target gives the probability the target policy plays an arm in a
// logged round, in the environment's labelling (Record.Class), so that a
// target keyed to a dataset's classes means the same in a sealed run,
// whose plugins saw the classes relabelled. It sees the whole record:
// Record.Row names the dataset row (its features and label are
// dataset.Load's row of that index); a synthetic model's contexts are not
// logged (Row is -1), so a target there can depend only on the
// replication and the round.
package offpolicy

import (
	"fmt"
	"math"
	"slices"

	"github.com/regretbench/regretbench/host/roundslog"
)

// Target is a policy to evaluate: the probability, in [0, 1], that it
// plays class (an arm in the environment's labelling) in the round of r.
// Its probabilities over the arms should sum to 1.
type Target func(r *roundslog.Record, class int) float64

// Deterministic is the target that plays choose(r) in the round of r.
func Deterministic(choose func(r *roundslog.Record) int) Target {
	return func(r *roundslog.Record, class int) float64 {
		if class == choose(r) {
			return 1
		}
		return 0
	}
}

// Constant is the target that always plays class.
func Constant(class int) Target {
	return func(_ *roundslog.Record, c int) float64 {
		if c == class {
			return 1
		}
		return 0
	}
}

// Estimate is an estimate of the target's value, its expected reward per
// round, with its standard error.
type Estimate struct {
	Value, SE float64
}

// Result is what an Evaluator estimates from a policy's records.
type Result struct {
	IPS, SNIPS Estimate
	// Records and Replications are the logged rounds used and the
	// replications they came from; SEAcross says whether the standard
	// errors are across replications (two or more) or across rounds.
	Records, Replications int
	SEAcross              bool
	// ESS is the effective sample size of the weights, (Σw)²/Σw²; a small
	// ESS against Records says the estimate rests on few rounds.
	// MaxWeight is the largest weight.
	ESS, MaxWeight float64
}

// sums are a replication's sums: rounds, Σw·r, Σw.
type sums struct {
	n    float64
	a, w float64
}

// Evaluator accumulates the records of one logging policy. Records of
// other policies are skipped.
type Evaluator struct {
	policy string
	target Target
	reps   map[uint64]*sums
	order  []uint64
	// Over all records: Σ(w·r)², Σw·(w·r), Σw², for the standard errors
	// across rounds.
	aa, aw, ww float64
	maxW       float64
}

// NewEvaluator evaluates target on the records of the logging policy
// labelled policy.
func NewEvaluator(policy string, target Target) *Evaluator {
	return &Evaluator{policy: policy, target: target, reps: map[uint64]*sums{}}
}

// Add adds r when it is a record of the evaluator's policy. A record
// without a probability, or whose target probability is not in [0, 1],
// is an error naming it: IPS needs the logging policy's probability of
// every arm it played.
func (e *Evaluator) Add(r *roundslog.Record) error {
	if r.Policy != e.policy {
		return nil
	}
	if !(r.Prob > 0 && r.Prob <= 1) {
		return fmt.Errorf("policy %q: replication %d round %d: no probability logged (%v); the logging policy must report the probability of every arm it plays",
			r.Policy, r.Replication, r.T, r.Prob)
	}
	pi := e.target(r, r.Class)
	if !(pi >= 0 && pi <= 1) {
		return fmt.Errorf("policy %q: replication %d round %d: the target gives class %d probability %v, want one in [0, 1]", r.Policy, r.Replication, r.T, r.Class, pi)
	}
	w := pi / r.Prob
	a := w * r.Reward
	s := e.reps[r.Replication]
	if s == nil {
		s = &sums{}
		e.reps[r.Replication] = s
		e.order = append(e.order, r.Replication)
	}
	s.n++
	s.a += a
	s.w += w
	e.aa += a * a
	e.aw += a * w
	e.ww += w * w
	e.maxW = max(e.maxW, w)
	return nil
}

// Result returns the estimates; an error when no record of the policy
// was added.
func (e *Evaluator) Result() (Result, error) {
	if len(e.reps) == 0 {
		return Result{}, fmt.Errorf("no record of policy %q", e.policy)
	}
	// Sum in replication order, so that the result does not depend on the
	// order the records came in.
	reps := slices.Clone(e.order)
	slices.Sort(reps)
	var n, a, w float64
	for _, r := range reps {
		s := e.reps[r]
		n, a, w = n+s.n, a+s.a, w+s.w
	}
	res := Result{Records: int(n), Replications: len(reps), SEAcross: len(reps) >= 2, MaxWeight: e.maxW}
	res.IPS.Value = a / n
	res.SNIPS.Value = a / w
	if e.ww > 0 {
		res.ESS = w * w / e.ww
	}
	// The delta method's standard error of the ratio sum(A)/sum(B), with
	// the clusters' sums A and B.
	ratioSE := func(v float64, b func(*sums) float64, bMean float64) float64 {
		R := float64(len(reps))
		var ss float64
		for _, r := range reps {
			s := e.reps[r]
			d := s.a - v*b(s)
			ss += d * d
		}
		return math.Sqrt(ss / (R * (R - 1) * bMean * bMean))
	}
	if res.SEAcross {
		R := float64(len(reps))
		res.IPS.SE = ratioSE(res.IPS.Value, func(s *sums) float64 { return s.n }, n/R)
		res.SNIPS.SE = ratioSE(res.SNIPS.Value, func(s *sums) float64 { return s.w }, w/R)
	} else {
		// One replication: the rounds as clusters of one record, from
		// the sums of squares: Σ(a - V·b)² = Σa² - 2V·Σab + V²·Σb².
		v := res.IPS.Value
		res.IPS.SE = math.Sqrt(max(e.aa-2*v*a+v*v*n, 0) / (n * (n - 1)))
		v = res.SNIPS.Value
		res.SNIPS.SE = math.Sqrt(max(e.aa-2*v*e.aw+v*v*e.ww, 0) / (n * (n - 1) * (w / n) * (w / n)))
	}
	return res, nil
}

// EvaluateFile estimates the value of target from the records of the
// logging policy labelled policy in the rounds log at path.
func EvaluateFile(path, policy string, target Target) (Result, error) {
	e := NewEvaluator(policy, target)
	err := roundslog.ReadFile(path, e.Add)
	if err != nil {
		return Result{}, err
	}
	res, err := e.Result()
	if err != nil {
		return Result{}, fmt.Errorf("rounds log %s: %w", path, err)
	}
	return res, nil
}
