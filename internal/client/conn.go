// Package client is the host's side of the regretbench policy protocol: it
// launches plugin executables over go-plugin (Launch), or attaches to one
// served in process (Attach), or runs an sdk.Plugin value with no
// transport at all (NewLocal), and plays sessions on them through one
// interface, Conn. Errors about a plugin are *PluginError, which names the
// plugin and quotes its last stderr lines.
//
// Plugin authors do not import it: they implement the policy API of
// package sdk. bench and the conformance kit (sdk/sdktest) both play the
// host through it, which is why it is internal rather than under host/: no
// package under sdk/ imports host/ (simtest's TestNoHostDeps).
package client

import (
	"context"

	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

// Conn is the host's view of a plugin, over go-plugin (Client) or in
// process (Local).
type Conn interface {
	// Describe asks the plugin what it is and which parameters it takes.
	Describe(ctx context.Context) (*Description, error)
	// Open starts a session.
	Open(ctx context.Context, req *OpenRequest) (SessionConn, error)
	// Close releases the plugin; for a Client it kills the process.
	Close() error
}

// SessionConn is the host's handle on an open session.
type SessionConn interface {
	// Step plays one round: round 1 carries no arms; later rounds carry
	// the previous round's arms and, under immediate feedback, their
	// rewards, or, under delayed feedback (a session opened with
	// OpenRequest.Feedback.Delayed(), protocol 2), the rewards arriving
	// now, ordered by index, then round. The result is valid until the
	// next Step.
	Step(ctx context.Context, st *Step) (StepResult, error)
	// Close ends the session.
	Close(ctx context.Context) error
}

// Step is one round of a session, from the engine to the policy.
type Step = wire.Step

// Arrival is one reward arriving late, under delayed feedback.
type Arrival = wire.Arrival

// StepResult is the answer to one Step: the arm of every replication and,
// when asked for, Diagnostics[d][i]. Its slices are owned by the session
// and valid until its next Step.
type StepResult = wire.StepResult

// Description is what a plugin reports about itself (the Describe RPC).
type Description struct {
	Name            string
	Version         string
	ProtocolVersion int
	Params          []sdk.Param
	Diagnostics     []string
	StepStream      bool   // serves the streaming Steps RPC
	SDK             string // implementation, e.g. "regretbench-go/0.1.0"
}

// Validate checks the parameters a plugin declares (params.ValidateAll:
// each is valid, and their names are unique), as the Go SDK checks its
// own. A host calls it on what Describe returned: a declaration it cannot
// use is the plugin's fault, not the scenario's.
func (d *Description) Validate() error { return params.ValidateAll(d.Params) }

// OpenRequest starts a session: one policy configuration over a batch of
// replications.
type OpenRequest struct {
	Arms         int
	Horizon      int
	Replications []uint64 // global replication indices, in Step order
	Seed         uint64   // the policy seed (one-way from the scenario seed); the scenario seed never leaves the host
	Family       sdk.Family
	NoiseSD      float64
	NoiseKnown   bool
	InitPulls    int
	Params       map[string]any // values as declared; missing ones take defaults
	Feedback     sdk.Feedback   // how rewards arrive; the zero value is immediate feedback (protocol 1's only mode)
}

// The protocol versions bench speaks.
const (
	// ProtocolVersion is the newest: version 2 adds delayed feedback.
	ProtocolVersion = wire.ProtocolVersion
	// MinProtocolVersion is the oldest: version 1 plugins run every
	// scenario without `feedback:`.
	MinProtocolVersion = wire.MinProtocolVersion
	// DelayedFeedbackVersion is the first version that carries delayed
	// feedback.
	DelayedFeedbackVersion = wire.DelayedFeedbackVersion
)
