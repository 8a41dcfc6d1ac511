package offpolicy_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/offpolicy"
	"github.com/regretbench/regretbench/host/roundslog"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }

// TestHandComputed: IPS, SNIPS and their standard errors on a log small
// enough to work out by hand, across two replications and across the
// rounds of one; records of another policy are skipped.
func TestHandComputed(t *testing.T) {
	rec := func(rep uint64, u, class int, prob, reward float64) roundslog.Record {
		return roundslog.Record{Policy: "P", Replication: rep, T: u, Class: class, Arm: class, Prob: prob, Reward: reward}
	}
	two := []roundslog.Record{
		rec(1, 1, 0, 0.8, 0), rec(1, 2, 2, 0.5, 1), // replication 1 first: the order must not matter
		rec(0, 1, 0, 0.5, 1), rec(0, 2, 1, 0.25, 0),
		{Policy: "other", Replication: 0, T: 1, Class: 0, Prob: 0.01, Reward: 1},
	}
	// Target "always class 0": weights 1.25, 0, 2, 0; w·r: 0, 0, 2, 0.
	// IPS = 2/4. Per replication A = (2, 0), n = (2, 2): SE² = ((2-1)² +
	// (0-1)²) / (2·1·2²) = 1/4. SNIPS = 2/3.25 = 8/13; W = (2, 1.25),
	// mean 1.625: SE² = ((2-16/13)² + (0-10/13)²) / (2·1·1.625²).
	e := offpolicy.NewEvaluator("P", offpolicy.Constant(0))
	for i := range two {
		if err := e.Add(&two[i]); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Result()
	if err != nil {
		t.Fatal(err)
	}
	snipsSE := math.Sqrt((2 * (10.0 / 13) * (10.0 / 13)) / (2 * 1.625 * 1.625)) // 2-16/13 = 10/13
	if !near(res.IPS.Value, 0.5) || !near(res.IPS.SE, 0.5) || !near(res.SNIPS.Value, 8.0/13) || !near(res.SNIPS.SE, snipsSE) ||
		res.Records != 4 || res.Replications != 2 || !res.SEAcross || !near(res.MaxWeight, 2) || !near(res.ESS, 3.25*3.25/(1.25*1.25+4)) {
		t.Errorf("two replications: %+v; want IPS 0.5 ± 0.5, SNIPS %v ± %v, 4 records, ESS %v", res, 8.0/13, snipsSE, 3.25*3.25/5.5625)
	}

	// One replication of the four rounds: the rounds are the clusters.
	// w·r = (0, 0, 2, 0): IPS 0.5, SE² = sample variance / 4 = (3·0.25 +
	// 2.25)/3/4 = 1/4. SNIPS 8/13 with w = (1.25, 0, 2, 0):
	// Σ(a - V·w)² = (10/13)² + (2 - 16/13)² = 2·(10/13)², over 4·3·(3.25/4)².
	e = offpolicy.NewEvaluator("P", offpolicy.Deterministic(func(*roundslog.Record) int { return 0 }))
	for _, r := range two[:4] {
		r.Replication = 7
		if err := e.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	res, err = e.Result()
	if err != nil {
		t.Fatal(err)
	}
	snipsSE = math.Sqrt(2 * (10.0 / 13) * (10.0 / 13) / (4 * 3 * (3.25 / 4) * (3.25 / 4)))
	if !near(res.IPS.Value, 0.5) || !near(res.IPS.SE, 0.5) || !near(res.SNIPS.Value, 8.0/13) || !near(res.SNIPS.SE, snipsSE) || res.SEAcross {
		t.Errorf("one replication: %+v; want IPS 0.5 ± 0.5, SNIPS %v ± %v across rounds", res, 8.0/13, snipsSE)
	}
}

// TestCoverage: on logs drawn from a known problem, the estimates of a
// constant target are unbiased (IPS) and their 95% intervals cover the
// true value about 95% of the time; the logging policy's probabilities
// depend on the context's class, so that an unweighted mean would be biased.
func TestCoverage(t *testing.T) {
	const rows, K, R, logs = 60, 3, 12, 400
	label := func(row int) int { // class frequencies 0.6, 0.2, 0.2
		switch row % 5 {
		case 0, 1, 2:
			return 0
		case 3:
			return 1
		}
		return 2
	}
	probs := func(row int) [K]float64 { // a policy that has learnt something
		switch label(row) {
		case 0:
			return [K]float64{0.5, 0.3, 0.2}
		case 1:
			return [K]float64{0.1, 0.6, 0.3}
		}
		return [K]float64{0.1, 0.2, 0.7}
	}
	truth := 0.6 // every replication plays every row once
	rng := rand.New(rand.NewPCG(1, 2))
	var covered [2]int
	var sum, naive float64
	for range logs {
		e := offpolicy.NewEvaluator("L", offpolicy.Constant(0))
		var hits, n float64
		for rep := range uint64(R) {
			for u, row := range rng.Perm(rows) {
				p := probs(row)
				c, x := 0, rng.Float64()
				for c < K-1 && x >= p[c] {
					x -= p[c]
					c++
				}
				r := roundslog.Record{Policy: "L", Replication: rep, T: u + 1, Row: row, Arm: c, Class: c, Prob: p[c]}
				if c == label(row) {
					r.Reward = 1
				}
				if c == 0 {
					hits += r.Reward
					n++
				}
				if err := e.Add(&r); err != nil {
					t.Fatal(err)
				}
			}
		}
		res, err := e.Result()
		if err != nil {
			t.Fatal(err)
		}
		for k, est := range []offpolicy.Estimate{res.IPS, res.SNIPS} {
			if math.Abs(est.Value-truth) <= 1.96*est.SE {
				covered[k]++
			}
		}
		sum += res.IPS.Value
		naive += hits / n
	}
	mean := sum / logs
	if math.Abs(mean-truth) > 0.01 {
		t.Errorf("IPS averages %v over %d logs, want %v", mean, logs, truth)
	}
	// The unweighted success rate of class 0 where it was played (about
	// 0.3/0.34) must be far from the truth for the test to have teeth.
	if m := naive / logs; math.Abs(m-truth) < 0.1 {
		t.Errorf("the unweighted estimate %v is near the truth %v: the problem does not test the weighting", m, truth)
	}
	for k, name := range []string{"IPS", "SNIPS"} {
		if f := float64(covered[k]) / logs; f < 0.88 || f > 0.99 {
			t.Errorf("%s: the 95%% interval covered the truth in %.3f of %d logs", name, f, logs)
		}
	}
}

// TestRefuses: a record without a probability, a target probability out
// of range, and a policy with no record are errors naming them.
func TestRefuses(t *testing.T) {
	r := roundslog.Record{Policy: "P", Replication: 3, T: 9, Class: 1, Prob: math.NaN(), Reward: 1}
	if err := offpolicy.NewEvaluator("P", offpolicy.Constant(1)).Add(&r); err == nil || !strings.Contains(err.Error(), `policy "P": replication 3 round 9: no probability logged`) {
		t.Errorf("no probability: %v", err)
	}
	r.Prob = 0.5
	bad := func(*roundslog.Record, int) float64 { return 2 }
	if err := offpolicy.NewEvaluator("P", bad).Add(&r); err == nil || !strings.Contains(err.Error(), "the target gives class 1 probability 2") {
		t.Errorf("target probability 2: %v", err)
	}
	if _, err := offpolicy.NewEvaluator("Q", bad).Result(); err == nil || err.Error() != `no record of policy "Q"` {
		t.Errorf("no record: %v", err)
	}
}
