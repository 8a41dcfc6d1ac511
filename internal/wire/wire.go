// Package wire is the regretbench policy protocol as both of its ends
// speak it: the go-plugin handshake and versions, the limits on what a
// plugin may declare, the gRPC glue, the step socket's frames and
// connections, and the Step a round travels as from the host's engine to
// the SDK's policy runner.
//
// It is internal: plugin authors import package sdk (the policy API and
// Serve), the host and sdk/sdktest import internal/client (the
// connections); the messages' conversions to and from Go values are
// internal/protoconv's. Both sides import this package, each through its own file:
// server.go is the plugin's side, client.go the host's, frame.go and
// stepconn_*.go are shared. The protocol itself is specified in sdk/proto/policy.proto and
// docs/step-socket.md.
package wire

import (
	"errors"

	plugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the newest version of the regretbench policy protocol:
// the go-plugin application protocol version. The host offers every version
// from MinProtocolVersion to ProtocolVersion and a Go plugin serves them
// all; go-plugin picks the highest both speak. Version 2 adds delayed
// feedback, version 3 contextual sessions (policy.proto).
const ProtocolVersion = 3

// MinProtocolVersion is the oldest protocol version bench still speaks:
// version 1 plugins run every scenario without `feedback:`.
const MinProtocolVersion = 1

// DelayedFeedbackVersion is the first protocol version that carries
// delayed feedback.
const DelayedFeedbackVersion = 2

// ContextualVersion is the first protocol version that carries contexts
// (docs/contextual.md).
const ContextualVersion = 3

// HostVersions are the protocol versions the host offers.
var HostVersions = []int{1, 2, 3}

// Handshake is the go-plugin handshake shared by the host and every plugin:
// the single definition of the magic cookie and the protocol version.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "REGRETBENCH_PLUGIN",
	MagicCookieValue: "7f3c1e9a-remax-bandit-policy",
}

// PluginName is the name under which the policy service is dispensed.
const PluginName = "policy"

// MaxMessage bounds gRPC messages in both directions, and step frames; the
// default 4 MiB server limit would cap diagnostics of very large batches.
const MaxMessage = 256 << 20

// Family names the reward distribution of a scenario's arms, as an Open
// request carries it (sdk.Family).
type Family string

// The reward families a scenario may declare.
const (
	// Gaussian rewards: N(mu_i, sd^2), sd known to the learner when the
	// session says so.
	Gaussian Family = "gaussian"
	// Bernoulli rewards in {0, 1} with success probability mu_i.
	Bernoulli Family = "bernoulli"
)

// Step is one round of a session, as the host's engine builds it, the
// client sends it, the server decodes it and the SDK's runner plays it.
// Under immediate feedback it carries the previous round's arms and
// rewards; under delayed feedback (protocol 2) the previous round's arms
// and the rewards arriving now, and no rewards. Round 1 carries no arms.
type Step struct {
	Round       int       // 1-based
	PrevArms    []int32   // the arm of every replication in round Round-1
	PrevRewards []float64 // immediate feedback: their rewards
	Arrivals    []Arrival // delayed feedback: ordered by Index, then Round
	WantDiag    bool      // answer with the declared diagnostics
	// Contexts, in a contextual session only (protocol 3), are the
	// contexts of round Round: every replication's ContextShape.Width
	// values, in the batch's order. Every round carries them, forced
	// rounds too.
	Contexts []float64
}

// ContextShape is the shape of a contextual session's contexts (protocol
// 3): each round, each replication sees Dim features shared by every arm
// or, with PerArm, Dim features for each arm, arm by arm. The zero value
// is a context-free session.
type ContextShape struct {
	Dim    int  // features per context (per arm when PerArm), > 0 in a contextual session
	PerArm bool // one feature vector per arm (action-dependent features)
}

// Contextual reports whether c describes a contextual session.
func (c ContextShape) Contextual() bool { return c.Dim > 0 }

// Width is the number of values of one replication's context in one
// round: Dim, or arms x Dim with per-arm features.
func (c ContextShape) Width(arms int) int {
	if c.PerArm {
		return arms * c.Dim
	}
	return c.Dim
}

// Arrival is one reward arriving late, under delayed feedback: the
// replication's position in the batch, the round the arm was pulled in, the
// arm and the reward.
type Arrival struct {
	Index  int // position of the replication in the session's batch
	Round  int // the round (1-based) the arm was pulled in, before the current round
	Arm    int32
	Reward float64
}

// StepResult is the answer to one Step: the arm of every replication for
// the requested round and, when asked for, Diagnostics[d][i]. The slices
// are owned by the session and valid until its next Step.
type StepResult struct {
	Arms        []int32
	Diagnostics [][]float64
	// Probs, in a contextual session (protocol 3), is the probability
	// the policy gave each chosen arm, in (0, 1], 0 where it does not
	// say; nil when no replication's policy says.
	Probs []float64
}

// ErrInvalid marks errors caused by a bad request rather than the policy:
// the gRPC server answers them InvalidArgument, the step socket with its
// invalid status.
var ErrInvalid = errors.New("invalid request")
