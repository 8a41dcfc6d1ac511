// Package metric computes the per-replication metrics of design §5 and
// their across-replication summaries.
//
// With best arm b, mu2 the largest mean strictly below mu_b and muhat_b(t)
// the empirical mean of b over the rewards observed before round t: those
// of rounds 1..t-1 under immediate feedback, those arrived by the start of
// round t under delayed feedback (rounds before b's first observed reward
// are not underestimated):
//
//	regret           = sum_t (mu_b - mu_I(t))
//	underestimation  = sum_t 1{muhat_b(t) < mu2}
//	regret_under     = sum_t (mu_b - mu_I(t)) 1{muhat_b(t) < mu2}
//	regret_not_under = regret - regret_under
//
// In a changing environment (design §5, Dynamic) mu_b, mu2 and the gaps
// are those of round t, so regret is the dynamic regret
// sum_t (max_k mu_k(t) - mu_I(t)), and b is the best arm of round t.
//
// In a contextual scenario (docs/contextual.md, RoundContextual) regret is
// sum_t (mu(x_t, a*(x_t)) - mu(x_t, I(t))), the expected reward of the
// best arm for round t's context minus that of the arm pulled (on a
// dataset, 1 - the reward), and PVLoss, the progressive-validation loss
// of the contextual bandit bake-off, is (1/t) sum_s (1 - r_s) over the
// rewards observed so far. No arm is best in every round, so the
// underestimation metrics are not computed: underestimation and
// regret_under are recorded as 0 and regret_not_under equals regret.
package metric

import (
	"fmt"
	"math"
	"strings"
)

// The names of the metrics of design §5, as results files, reports,
// flags and comparisons spell them.
const (
	Regret          = "regret"
	Underestimation = "underestimation"
	RegretUnder     = "regret_under"
	RegretNotUnder  = "regret_not_under"
)

// PVLoss is the progressive-validation loss of a contextual run: the mean
// of 1 - reward over the rounds so far. It is not in Names: only
// contextual results carry it (results.Policy.PVLoss).
const PVLoss = "pv_loss"

// Names lists the metrics of design §5 in report order: the one list of
// metric names. Every package that names, parses, checks or loops over
// metrics (results, report, compare, gate, engine, shard, cli) takes them
// from here; the JSON tags of results.Policy's series, which Go cannot
// take from a variable, are checked against it by a test, and
// TestEveryConsumerHandlesEveryName checks that each consumer handles each
// name as that metric.
var Names = [Count]string{Regret, Underestimation, RegretUnder, RegretNotUnder}

// Count is the number of metrics.
const Count = 4

// Index returns the position of the metric name in Names, and false when
// name is not a metric.
func Index(name string) (int, bool) {
	for i, n := range Names {
		if n == name {
			return i, true
		}
	}
	return -1, false
}

// List writes Names for a help text or an error message:
// "regret, underestimation, regret_under or regret_not_under".
func List() string {
	return strings.Join(Names[:Count-1], ", ") + " or " + Names[Count-1]
}

// Check returns an error naming the metrics when name is not one.
func Check(name string) error {
	if _, ok := Index(name); !ok {
		return fmt.Errorf("unknown metric %q (want %s)", name, List())
	}
	return nil
}

// Tracker accumulates the metrics of a batch of replications round by round
// and records them at checkpoints.
type Tracker struct {
	gaps []float64
	best int32
	mu2  float64

	regret, under, regretUnder []float64
	nBest                      []float64
	sumBest                    []float64

	// In a changing environment (Dynamic): every replication's gaps,
	// best arm and mu2 of the round in play (Set), and the count and sum
	// of every arm's observed rewards, [i*k+arm], since b changes.
	dynamic bool
	k       int
	gapsOf  [][]float64
	bestOf  []int32
	mu2Of   []float64
	nArm    []float64
	sumArm  []float64

	// In a contextual run (Contextual): every replication's sum of
	// 1 - reward, and PV[c][i], the progressive-validation loss at
	// checkpoint c.
	loss []float64
	PV   [][]float64

	checkpoints []int
	next        int // index of the next checkpoint
	// Recorded[m][c][i]: metric m (order of Names) at checkpoint c for
	// replication i.
	Recorded [Count][][]float64
}

// NewTracker tracks n replications of an environment with the given gaps
// (mu_b - mu_i), best arm and mu2, recording at the given rounds.
func NewTracker(n int, gaps []float64, best int, mu2 float64, checkpoints []int) *Tracker {
	t := &Tracker{
		gaps: gaps, best: int32(best), mu2: mu2,
		regret: make([]float64, n), under: make([]float64, n), regretUnder: make([]float64, n),
		nBest: make([]float64, n), sumBest: make([]float64, n),
		checkpoints: checkpoints,
	}
	for m := range t.Recorded {
		t.Recorded[m] = make([][]float64, len(checkpoints))
		for c := range checkpoints {
			t.Recorded[m][c] = make([]float64, n)
		}
	}
	return t
}

// Dynamic makes the tracker follow an environment whose means change: each
// replication's gaps, best arm and mu2 are then those given to Set, and
// the observed rewards of every one of the k arms are kept, so that the
// empirical mean of whichever arm is best in round t is at hand. Until
// Set is called, every replication has the gaps, best arm and mu2 given
// to NewTracker. Call it before the first round.
func (t *Tracker) Dynamic(k int) {
	n := len(t.regret)
	t.dynamic, t.k = true, k
	t.gapsOf = make([][]float64, n)
	t.bestOf = make([]int32, n)
	t.mu2Of = make([]float64, n)
	for i := range n {
		t.gapsOf[i], t.bestOf[i], t.mu2Of[i] = t.gaps, t.best, t.mu2
	}
	t.nArm = make([]float64, n*k)
	t.sumArm = make([]float64, n*k)
}

// Contextual makes the tracker follow a contextual run: rounds are then
// accounted for by RoundContextual, which records PV besides Recorded.
// Call it before the first round.
func (t *Tracker) Contextual() {
	t.loss = make([]float64, len(t.regret))
	t.PV = make([][]float64, len(t.checkpoints))
	for c := range t.PV {
		t.PV[c] = make([]float64, len(t.regret))
	}
}

// RoundContextual accounts for round t (1-based, in order) of a
// Contextual tracker: in replication i the arm pulled had regret
// regrets[i] (the best expected reward for the round's context minus its
// own) and returned rewards[i].
func (t *Tracker) RoundContextual(round int, regrets, rewards []float64) {
	for i, g := range regrets {
		t.regret[i] += g
		t.loss[i] += 1 - rewards[i]
	}
	if t.next < len(t.checkpoints) && t.checkpoints[t.next] == round {
		for i, l := range t.loss {
			t.PV[t.next][i] = l / float64(round)
		}
	}
	t.record(round)
}

// Set sets replication i's gaps (mu_b - mu_a of the round in play), best
// arm and mu2 in a Dynamic tracker, from the next round accounted for on.
// The tracker keeps gaps, not a copy: the caller may update it in place
// and call Set again.
func (t *Tracker) Set(i int, gaps []float64, best int, mu2 float64) {
	t.gapsOf[i], t.bestOf[i], t.mu2Of[i] = gaps, int32(best), mu2
}

// Round accounts for round t (1-based, in order): arms[i] was pulled in
// replication i and returned rewards[i].
func (t *Tracker) Round(round int, arms []int32, rewards []float64) {
	if t.dynamic {
		t.pullDynamic(arms)
		for i, a := range arms {
			t.Observe(i, a, rewards[i])
		}
		t.record(round)
		return
	}
	for i, a := range arms {
		g := t.gaps[a]
		t.regret[i] += g
		if nb := t.nBest[i]; nb > 0 && t.sumBest[i]/nb < t.mu2 {
			t.under[i]++
			t.regretUnder[i] += g
		}
		if a == t.best {
			t.nBest[i]++
			t.sumBest[i] += rewards[i]
		}
	}
	t.record(round)
}

// Pull accounts for round t under delayed feedback: arms[i] was pulled in
// replication i. Regret counts at pull time; whether b is underestimated
// is judged on the rewards observed so far (Observe), so the arrivals of
// round t are observed before Pull(t). With every reward of round t-1
// observed before Pull(t), Pull and Observe give exactly what Round gives.
func (t *Tracker) Pull(round int, arms []int32) {
	if t.dynamic {
		t.pullDynamic(arms)
		t.record(round)
		return
	}
	for i, a := range arms {
		g := t.gaps[a]
		t.regret[i] += g
		if nb := t.nBest[i]; nb > 0 && t.sumBest[i]/nb < t.mu2 {
			t.under[i]++
			t.regretUnder[i] += g
		}
	}
	t.record(round)
}

// Observe accounts for the arrival of a reward of arm in replication i:
// only observed rewards enter the empirical mean of the best arm.
func (t *Tracker) Observe(i int, arm int32, reward float64) {
	if t.dynamic {
		j := i*t.k + int(arm)
		t.nArm[j]++
		t.sumArm[j] += reward
		return
	}
	if arm == t.best {
		t.nBest[i]++
		t.sumBest[i] += reward
	}
}

// pullDynamic counts the regret of the round's pulls in a Dynamic tracker,
// against each replication's environment of the round, and whether its
// best arm is underestimated on the rewards observed so far.
func (t *Tracker) pullDynamic(arms []int32) {
	for i, a := range arms {
		g := t.gapsOf[i][a]
		t.regret[i] += g
		j := i*t.k + int(t.bestOf[i])
		if nb := t.nArm[j]; nb > 0 && t.sumArm[j]/nb < t.mu2Of[i] {
			t.under[i]++
			t.regretUnder[i] += g
		}
	}
}

// record records the metrics when round is the next checkpoint.
func (t *Tracker) record(round int) {
	if t.next < len(t.checkpoints) && t.checkpoints[t.next] == round {
		c := t.next
		copy(t.Recorded[0][c], t.regret)
		copy(t.Recorded[1][c], t.under)
		copy(t.Recorded[2][c], t.regretUnder)
		for i := range t.regret {
			t.Recorded[3][c][i] = t.regret[i] - t.regretUnder[i]
		}
		t.next++
	}
}

// Summary is a mean and its standard error.
type Summary struct {
	Mean float64
	SE   float64
}

// Summarize returns the mean and the standard error of the mean of xs
// (the sample sd / sqrt(n); 0 for n < 2), summed one value after the other
// in replication order so the result is bit-identical however and wherever
// the values were produced. It agrees with gonum's stat.MeanStdDev to
// within rounding (tested) but does not call it: on amd64 gonum sums in
// assembly with partial sums split by the slice's memory alignment, and
// elsewhere in a plain loop, so the last bits of a mean could depend on
// the machine.
func Summarize(xs []float64) Summary {
	n := float64(len(xs))
	if len(xs) == 0 {
		return Summary{Mean: math.NaN(), SE: math.NaN()}
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	mean := s / n
	if len(xs) < 2 {
		return Summary{Mean: mean}
	}
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return Summary{Mean: mean, SE: math.Sqrt(ss/(n-1)) / math.Sqrt(n)}
}

// Series summarises a [checkpoint][replication] matrix column by column.
func Series(m [][]float64) (mean, se []float64) {
	mean = make([]float64, len(m))
	se = make([]float64, len(m))
	for c, xs := range m {
		s := Summarize(xs)
		mean[c], se[c] = s.Mean, s.SE
	}
	return mean, se
}
