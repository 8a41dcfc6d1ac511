package ctxsim

import (
	"math"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// CheckRefusesContextFree: a session without a context is refused (the
// plugin is contextual only), and so is one without arms.
func CheckRefusesContextFree(t *testing.T, p sdk.Plugin) {
	t.Helper()
	params, err := sdk.Resolve(p.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := sdk.Replica{Rand: rand.New(rand.NewPCG(1, 2))}
	for name, s := range map[string]sdk.Session{
		"context-free": {Arms: 2, Horizon: 10, Family: sdk.Bernoulli, Params: params},
		"no arms":      {Arms: 0, Horizon: 10, Family: sdk.Bernoulli, Params: params, Context: sdk.ContextShape{Dim: 2}},
	} {
		if _, err := p.NewContextual(s, r); err == nil {
			t.Errorf("%s: a %s session was accepted", p.Name, name)
		}
	}
	if p.New != nil || p.NewBatch != nil {
		t.Errorf("%s: has a context-free factory; the contextual baselines play contextual scenarios only", p.Name)
	}
}

// Prob says what probability a policy reports.
type Prob int

// The kinds of reported probability.
const (
	Deterministic Prob = iota // always 1
	Exact                     // in (0, 1]: the probability of the chosen arm
	Unsaid                    // always 0: the policy cannot compute it
)

// CheckRerun: two runs of the same seed choose bit-identical arms and
// report identical probabilities, and a randomised policy's (want not
// Deterministic) another seed's differ; the probabilities are of kind
// want; and both context shapes are played (or refused, when perArm is
// false).
func CheckRerun(t *testing.T, p sdk.Plugin, logistic, perArm bool, want Prob) {
	t.Helper()
	shapes := []bool{false}
	if perArm {
		shapes = append(shapes, true)
	}
	for _, pa := range shapes {
		var prob *Problem
		if logistic {
			prob = NewLogistic(5, 4, pa, 3, 1)
		} else {
			prob = NewLinear(5, 4, pa, 0.5, 1)
		}
		s := prob.Session(300, Params(t, p, nil))
		a := prob.Run(Build(t, p, s, 7), 300, 11)
		b := prob.Run(Build(t, p, s, 7), 300, 11)
		if !slices.Equal(a.Arms, b.Arms) || !slices.Equal(a.Probs, b.Probs) {
			t.Errorf("%s (per-arm %v): two runs of seed 7 differ", p.Name, pa)
		}
		// A randomised policy draws from its replica's source: another
		// replication, on the same contexts and rewards, plays otherwise.
		if c := prob.Run(Build(t, p, s, 8), 300, 11); want != Deterministic && slices.Equal(a.Arms, c.Arms) {
			t.Errorf("%s (per-arm %v): replications 7 and 8 pull the same arms: the policy ignores Replica.Rand", p.Name, pa)
		}
		for i, pr := range a.Probs {
			ok := false
			switch want {
			case Deterministic:
				ok = pr == 1
			case Exact:
				ok = pr > 0 && pr <= 1
			case Unsaid:
				ok = pr == 0
			}
			if !ok {
				t.Errorf("%s (per-arm %v): round %d reported probability %v, want kind %d", p.Name, pa, i+1, pr, want)
				break
			}
		}
	}
	if !perArm {
		prob := NewLinear(3, 2, true, 0.5, 1)
		s := prob.Session(10, Params(t, p, nil))
		if _, err := p.NewContextual(s, sdk.Replica{Rand: rand.New(rand.NewPCG(1, 2))}); err == nil {
			t.Errorf("%s: a per-arm session was accepted by a policy that does not play one", p.Name)
		}
	}
}

// BenchRound runs b.N rounds of pol, Select then Observe, on 256 fixed
// contexts of width values cycled, and reports allocations and, beside
// the wall time, cpu-ns/op: the process's CPU time a round, which a loaded
// machine inflates less.
func BenchRound(b *testing.B, pol sdk.ContextualPolicy, width int) {
	const n = 256
	xs := make([]float64, n*width)
	for i := range xs {
		xs[i] = math.Sin(float64(i)*0.7) / 4
	}
	b.ReportAllocs()
	t := 0
	cpu0 := cpuTime(b)
	for b.Loop() {
		x := xs[(t%n)*width : (t%n+1)*width]
		a, _ := pol.Select(t+1, x)
		r := 0.0
		if x[0] > 0 {
			r = 1
		}
		pol.Observe(t+1, x, a, r)
		t++
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(t), "cpu-ns/op")
}

// cpuTime is the process's user+system CPU time so far, in ns.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// CheckNoAllocs checks that a round of p, Select then Observe with reward
// on a fixed context of width values, allocates nothing.
func CheckNoAllocs(t *testing.T, name string, p sdk.ContextualPolicy, width int, reward float64) {
	t.Helper()
	x := make([]float64, width)
	for i := range x {
		x[i] = float64(i%7)/7 - 0.4
	}
	if n := testing.AllocsPerRun(200, func() {
		a, _ := p.Select(1, x)
		p.Observe(1, x, a, reward)
	}); n != 0 {
		t.Errorf("%s: %v allocations a round, want 0", name, n)
	}
}
