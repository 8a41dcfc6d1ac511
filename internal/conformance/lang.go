package conformance

import "strings"

// vocab names what a rule's explanation refers to in the terms of the
// plugin author's SDK, so that a Python author is not told about
// Replica.Rand. The kit picks it from the SDK string the plugin reports in
// Describe (Go: "regretbench-go/...", Python: "regretbench-python/...");
// a plugin on neither SDK gets the protocol's terms.
type vocab struct {
	lang string // "go", "python", "" (another SDK, or none)
	// rand is a replication's own random source, seeded from (policy
	// seed, replication index) only.
	rand string
	// batchRand is where a batch policy takes each replication's random
	// numbers from.
	batchRand string
	// arrivals says how a batch policy learns delayed rewards.
	arrivals string
	// selectFn names the policy's decision, observe its update.
	selectFn, observe string
}

var (
	vocabGo = vocab{lang: "go",
		rand:      "Replica.Rand",
		batchRand: "each replication's Replica.Rand (the replicas a BatchFactory receives)",
		arrivals:  "a BatchPolicy must read BatchStep.Arrivals when Session.Feedback.Delayed()",
		selectFn:  "Select", observe: "Observe",
	}
	vocabPython = vocab{lang: "python",
		rand:      "replica.rng",
		batchRand: "each replica's rng, or rb.KeyedDraws(s.seed, [r.index for r in replicas], width) drawn per round",
		arrivals:  "a BatchPolicy (rb.BatchPolicy) must read st.arrivals (BatchStep.arrivals) when s.delayed (Session.feedback is set)",
		selectFn:  "select", observe: "observe",
	}
	vocabOther = vocab{
		rand:      "a random source seeded from the session's policy seed and the replication's index only",
		batchRand: "a random source per replication, seeded from the policy seed and the replication's index only",
		arrivals:  "a plugin must learn delayed rewards from each round's arrivals (StepRequest.arrivals), not from prev_rewards",
		selectFn:  "the policy", observe: "the policy",
	}
)

// vocabOf returns the vocabulary of the SDK a plugin reports.
func vocabOf(sdkString string) vocab {
	switch {
	case strings.HasPrefix(sdkString, "regretbench-go/"):
		return vocabGo
	case strings.HasPrefix(sdkString, "regretbench-python/"):
		return vocabPython
	}
	return vocabOther
}
