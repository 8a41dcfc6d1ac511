package client

import (
	"context"
	"fmt"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

// Local runs an sdk.Plugin in the calling process with no transport at
// all: the reference against which transport overhead is measured, and
// the conformance kit's first check. Describe and Open go through the
// protocol's messages, as over gRPC; rounds are direct calls.
type Local struct {
	srv wire.Server
}

// NewLocal returns an in-process Conn for p.
func NewLocal(p sdk.Plugin) (*Local, error) {
	srv, err := wire.InProcess(p)
	if err != nil {
		return nil, err
	}
	return &Local{srv: srv}, nil
}

// Describe implements Conn.
func (l *Local) Describe(context.Context) (*Description, error) {
	r, err := l.srv.Describe()
	if err != nil {
		return nil, err
	}
	return protoconv.FromDescribe(r), nil
}

// Open implements Conn. It refuses a session the plugin does not play
// (contextual or context-free) as a Client does.
func (l *Local) Open(_ context.Context, req *OpenRequest) (SessionConn, error) {
	d, err := l.srv.Describe()
	if err != nil {
		return nil, err
	}
	if err := declaredBy(protoconv.FromDescribe(d)).checkOpen(req); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	preq, err := protoconv.ToOpen(req)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	id, err := l.srv.Open(preq, wire.ProtocolVersion)
	if err != nil {
		return nil, err
	}
	s, err := l.srv.Session(id)
	if err != nil {
		return nil, err
	}
	return &localSession{srv: l.srv, s: s, id: id}, nil
}

// Close implements Conn.
func (l *Local) Close() error { return nil }

type localSession struct {
	srv wire.Server
	s   wire.Session
	id  uint64
}

// Step implements SessionConn. Like the transports, which carry only the
// fields of the session's feedback mode, it passes on the previous
// rewards under immediate feedback and the arrivals under delayed.
func (s *localSession) Step(_ context.Context, st *Step) (StepResult, error) {
	if other := s.s.Delayed() && len(st.PrevRewards) > 0 || !s.s.Delayed() && len(st.Arrivals) > 0; other {
		own := *st
		if s.s.Delayed() {
			own.PrevRewards = nil
		} else {
			own.Arrivals = nil
		}
		st = &own
	}
	return s.s.Step(st)
}

func (s *localSession) Close(context.Context) error { return s.srv.Close(s.id) }
