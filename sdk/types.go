package sdk

// Description is what a plugin reports about itself (the Describe RPC).
type Description struct {
	Name            string
	Version         string
	ProtocolVersion int
	Params          []Param
	Diagnostics     []string
	StepStream      bool   // serves the streaming Steps RPC
	SDK             string // implementation, e.g. "regretbench-go/0.1.0"
}

// OpenRequest starts a session: one policy configuration over a batch of
// replications.
type OpenRequest struct {
	Arms         int
	Horizon      int
	Replications []uint64 // global replication indices, in Step order
	Seed         uint64   // the policy seed (one-way from the scenario seed); the scenario seed never leaves the host
	Family       Family
	NoiseSD      float64
	NoiseKnown   bool
	InitPulls    int
	Params       map[string]any // values as declared; missing ones take defaults
}

// StepResult is the answer to one Step: the arm of every replication for the
// requested round and, when asked for, diagnostics[d][i]. The slices are
// owned by the session and valid until its next Step.
type StepResult struct {
	Arms        []int32
	Diagnostics [][]float64
}
