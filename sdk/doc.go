// Package sdk is the regretbench plugin SDK: what a bandit policy plugin
// implements, and Serve, which serves it to the bench host over go-plugin
// (gRPC). It holds an author's API and nothing else: the host's client
// (internal/client) and the wire code both sides share are internal, and the
// conformance kit for a plugin's tests is sdk/sdktest.
//
// # Writing a policy
//
// Implement Policy for one replication, declare parameters, and serve:
//
//	type greedy struct{ sum, n []float64 }
//
//	func (g *greedy) Select(t int) int {
//		best := 0
//		for i := range g.sum {
//			if g.sum[i]/g.n[i] > g.sum[best]/g.n[best] {
//				best = i
//			}
//		}
//		return best
//	}
//
//	func (g *greedy) Observe(t, arm int, reward float64) { g.sum[arm] += reward; g.n[arm]++ }
//
//	func main() {
//		sdk.Serve(sdk.Plugin{Name: "greedy", Version: "0.1.0",
//			New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
//				return &greedy{sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}, nil
//			}})
//	}
//
// Build it as bench-plugin-greedy into the plugin directory and name it in a
// scenario as `plugin: greedy`.
//
// # What a policy sees
//
// Session carries only what the scenario declares known to the learner: the
// number of arms, the horizon, the reward family, the noise sd when known,
// the number of host-forced initial pulls, the policy seed (a one-way
// function of the scenario seed, never the seed itself) and the parameters. A
// policy never sees the true means, the best arm, or a reward of an arm it
// did not pull. Rounds 1..K*InitPulls pull arms 0..K-1 in order; the SDK
// calls Observe for them but not Select.
//
// # Delayed and batched feedback
//
// A scenario may declare that rewards arrive late (`feedback:`, protocol
// version 2; Session.Feedback says how). A reward of round t with delay d
// arrives at the start of round t+d+1; the SDK then calls Observe(t, arm,
// reward) before Select of that round, in the order of the pulled rounds,
// and never for rewards due after the horizon. A BatchPolicy gets them in
// BatchStep.Arrivals (PrevRewards is then empty; PrevArms still carries the
// arms pulled in round t-1). A plugin built on this SDK serves protocols 1
// to 3; the host picks the highest it speaks.
//
// Each replication gets its own *rand.Rand (math/rand/v2) seeded from
// (policy seed, global replication index) only, so results do not depend on how
// the host batches or shards replications, nor on the number of cores.
//
// # Contextual policies
//
// In a contextual scenario (protocol version 3, docs/contextual.md) each
// replication sees a context each round: Session.Context gives its shape,
// Dim features, or Dim features per arm (arm a's at x[a*Dim:(a+1)*Dim]).
// Implement ContextualPolicy and set Plugin.NewContextual (or a BatchPolicy
// and Plugin.NewContextualBatch):
//
//	func (g *linGreedy) Select(t int, x []float64) (arm int, prob float64) {
//		return g.best(x), 1 // a deterministic policy says 1; 0 says nothing
//	}
//
//	func (g *linGreedy) Observe(t int, x []float64, arm int, reward float64) {
//		g.update(x, arm, reward) // x is round t's context, kept by the SDK
//	}
//
// The SDK calls Select(t, x) with round t's context and, once the reward
// arrives with the next round, Observe with that same context: a policy
// keeps no copy of it (x belongs to the SDK; copy what you keep). The
// probability is the one the policy gave the arm it chose, in (0, 1], or
// 0 when it does not say; the host keeps it for off-policy evaluation. A
// batch policy reads BatchStep.Contexts (and PrevContexts, round t-1's,
// with PrevRewards) and fills Arms and Probs. A plugin may set both kinds
// of factory and play both kinds of scenario; one with only contextual
// factories is refused on context-free scenarios, and one without any on
// contextual scenarios, before the run. Contextual sessions take
// immediate feedback.
//
// # Batching and parallelism
//
// The host sends one Step per round carrying every replication of a
// session. The SDK runs the per-replication policies of a Step in parallel
// chunks across the cores (Cores) when the previous Step took 100 us of
// CPU or more and the plugin process has fewer sessions open than cores, and on
// one goroutine otherwise. Authors who vectorise implement BatchPolicy and
// set Plugin.NewBatch instead of Plugin.New. Serve gives the Go scheduler
// a spare P (SpareP), as sessions wait for rounds in blocking reads.
//
// Optional per-replication diagnostics (e.g. a solver's KKT gap) are
// declared in Plugin.Diagnostics and reported by a Policy that implements
// Diagnoser; the host asks for them at its checkpoints only.
//
// # Protocol
//
// The wire protocol is in proto/policy.proto (package regretbench.v1),
// served through github.com/hashicorp/go-plugin with the magic cookie
// REGRETBENCH_PLUGIN=7f3c1e9a-remax-bandit-policy and application protocol
// versions 1 to 3: a plugin in any language that serves it and
// go-plugin's health, controller and stdio services works with bench
// (docs/design.md; docs/step-socket.md for the optional step socket).
package sdk
