// Package client is the host's side of the regretbench policy protocol: it
// speaks to a plugin process over go-plugin (Start, given the process's
// runner; package launch starts executables as bench does), or attaches
// to one served in process (Attach, ServeInProcess), or runs an
// sdk.Plugin value with no transport at all (NewLocal), and plays
// sessions on them through one interface, Conn. Errors about a plugin are
// *PluginError, which names the plugin and quotes its last stderr lines.
//
// Plugin authors do not import it: they implement the policy API of
// package sdk. bench and the conformance kit (sdk/sdktest) both play the
// host through it, which is why it is internal rather than under host/: no
// package under sdk/ imports host/ (simtest's TestNoHostDeps). It imports
// nothing of the sandbox (internal/launch does), so the kit's tests link
// none of it (sdktest's TestAuthorDeps).
package client

import (
	"context"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
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
	// now, ordered by index, then round. In a contextual session (one
	// opened with OpenRequest.Context set, protocol 3) every round
	// carries its contexts, n x width values, and the result the
	// probabilities the policy reported, if any. The result is valid
	// until the next Step.
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

// Description is what a plugin reports about itself (the Describe RPC);
// its Validate checks the parameters it declares.
type Description = protoconv.Description

// OpenRequest starts a session: one policy configuration over a batch of
// replications.
type OpenRequest = protoconv.OpenRequest

// The protocol versions bench speaks.
const (
	// ProtocolVersion is the newest: version 2 adds delayed feedback,
	// version 3 contextual sessions.
	ProtocolVersion = wire.ProtocolVersion
	// MinProtocolVersion is the oldest: version 1 plugins run every
	// scenario without `feedback:`.
	MinProtocolVersion = wire.MinProtocolVersion
	// DelayedFeedbackVersion is the first version that carries delayed
	// feedback.
	DelayedFeedbackVersion = wire.DelayedFeedbackVersion
	// ContextualVersion is the first version that carries contexts
	// (docs/contextual.md).
	ContextualVersion = wire.ContextualVersion
)
