package wire

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/internal/wire/pb"
)

// The fuzz targets of the step socket's frames, on both sides: the
// decoders of what the other side sends, and the plugin's server of the
// socket. Their seed corpora, including the frames of issue 15, are in
// testdata/fuzz/<target>/ and run with every `go test`; to fuzz:
//
//	go test -run '^$' -fuzz FuzzDecodeStepResponse -fuzztime 60s ./internal/wire/
//
// Each target checks, besides not panicking, that whatever is accepted is
// exactly what the session expects and that nothing was allocated beyond
// what the session can need. The host's checks of gRPC answers are fuzzed
// in internal/client, the SDK's runner in sdk.

// FuzzReadFrame: a frame is read whole or refused, never longer than the
// session's limit, and its buffer is no larger than that limit needs.
func FuzzReadFrame(f *testing.F) {
	f.Add(appendStepRequest(nil, &Step{Round: 3, PrevArms: []int32{1, 2}, PrevRewards: []float64{0.5, -1}, WantDiag: true}, false), uint32(reqFrameLimit(2, 0)))
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}}, false), uint32(respFrameLimit(2, 0, false)))
	f.Fuzz(func(t *testing.T, data []byte, limit uint32) {
		lim := 4 + int(limit%(1<<20))
		frame, err := readFrame(bytes.NewReader(data), nil, lim)
		if err != nil {
			if len(frame) != 0 {
				t.Fatalf("error %v with a frame of %d bytes", err, len(frame))
			}
			return
		}
		if len(frame) < 4 || len(frame) != 4+int(le.Uint32(frame)) || len(frame) > lim {
			t.Fatalf("frame of %d bytes, header %d, limit %d", len(frame), le.Uint32(frame), lim)
		}
		if !bytes.HasPrefix(data, frame) {
			t.Fatalf("frame differs from the bytes read")
		}
		if cap(frame) > 2*max(lim, minFrameBuf) {
			t.Fatalf("buffer of %d bytes for a limit of %d", cap(frame), lim)
		}
	})
}

// FuzzDecodeStepRequest (plugin side): a request is accepted only with
// every replication of the session or none, under delayed feedback with
// no rewards and at most the pending arrivals (3n here), and then
// re-encodes to the same bytes.
func FuzzDecodeStepRequest(f *testing.F) {
	f.Add(appendStepRequest(nil, &Step{Round: 1}, false)[4:], uint16(2))
	f.Add(appendStepRequest(nil, &Step{Round: 7, PrevArms: []int32{1, 0}, PrevRewards: []float64{0.25, math.Inf(1)}, WantDiag: true}, false)[4:], uint16(2))
	f.Add(appendStepRequest(nil, &Step{Round: 7, PrevArms: []int32{1, 0}, Arrivals: []Arrival{{1, 3, 0, 0.5}}, WantDiag: true}, true)[4:], uint16(2))
	f.Fuzz(func(t *testing.T, p []byte, n16 uint16) {
		n := int(n16)
		maxArr := 3 * n
		var fr stepFrame
		if err := decodeStepRequest(p, &fr, n, maxArr, 0); err != nil {
			if cap(fr.PrevArms) > 0 || cap(fr.PrevRewards) > 0 || cap(fr.Arrivals) > 0 {
				t.Fatalf("refused request allocated %d arms", cap(fr.PrevArms))
			}
			return
		}
		want := slices.Clone(p)
		if fr.delayed {
			if len(fr.PrevRewards) != 0 || (len(fr.PrevArms) != n && len(fr.PrevArms) != 0) || len(fr.Arrivals) > maxArr {
				t.Fatalf("decoded %d arms, %d rewards and %d arrivals for a session of %d", len(fr.PrevArms), len(fr.PrevRewards), len(fr.Arrivals), n)
			}
			want[8] &= 3
			if again := appendStepRequest(nil, &fr.Step, true)[4:]; !bytes.Equal(again, want) {
				t.Fatalf("re-encoded %x, want %x", again, want)
			}
			return
		}
		if len(fr.PrevArms) != len(fr.PrevRewards) || (len(fr.PrevArms) != n && len(fr.PrevArms) != 0) || cap(fr.PrevArms) > n {
			t.Fatalf("decoded %d arms and %d rewards (capacity %d) for a session of %d", len(fr.PrevArms), len(fr.PrevRewards), cap(fr.PrevArms), n)
		}
		if len(fr.Arrivals) != 0 {
			t.Fatalf("decoded %d arrivals from a request without flag bit 1", len(fr.Arrivals))
		}
		again := appendStepRequest(nil, &fr.Step, false)[4:]
		want[8] &= 1 // only the flag bits are meaningful
		if !bytes.Equal(again, want) {
			t.Fatalf("re-encoded %x, want %x", again, want)
		}
	})
}

// FuzzDecodeStepResponse (host side): an OK answer is accepted only with
// an arm per replication and the expected diagnostics, and re-encodes to
// the same bytes; nothing is allocated by a count the session does not
// expect.
func FuzzDecodeStepResponse(f *testing.F) {
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}}, false)[4:], uint16(2), uint8(0))
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}, Diagnostics: [][]float64{{1, 2}, {math.NaN(), math.Copysign(0, -1)}}}, false)[4:], uint16(2), uint8(2))
	f.Add(appendErrorResponse(nil, frameFailed, "the policy gave up")[4:], uint16(2), uint8(1))
	f.Fuzz(func(t *testing.T, p []byte, n16 uint16, nd uint8) {
		n, ndiag := int(n16), int(nd)%(MaxDiagnostics+1)
		var r stepReply
		if err := decodeStepResponse(p, &r, n, ndiag, false); err != nil {
			if cap(r.arms) > n || cap(r.diag) > ndiag {
				t.Fatalf("refused answer allocated %d arms and %d diagnostics", cap(r.arms), cap(r.diag))
			}
			return
		}
		if r.status != frameOK {
			if !bytes.Equal(appendErrorResponse(nil, r.status, r.msg)[4:], p) && len(r.msg) <= maxErrorMsg {
				t.Fatalf("error answer %d %q re-encodes differently", r.status, r.msg)
			}
			return
		}
		if len(r.arms) != n || cap(r.arms) > n || len(r.diag) != ndiag || cap(r.diag) > ndiag {
			t.Fatalf("decoded %d arms and %d diagnostics for %d replications and %d diagnostics", len(r.arms), len(r.diag), n, ndiag)
		}
		for d, row := range r.diag {
			if len(row) != n || cap(row) > n {
				t.Fatalf("diagnostic %d: %d values for %d replications", d, len(row), n)
			}
		}
		if again := appendStepResponse(nil, StepResult{Arms: r.arms, Diagnostics: r.diag}, false)[4:]; !bytes.Equal(again, p) {
			t.Fatalf("re-encoded %x, want %x", again, p)
		}
	})
}

// rwPair is a connection reading from one buffer and writing to another.
type rwPair struct {
	io.Reader
	io.Writer
}

// FuzzServeStep (plugin side): whatever bytes the host sends, the plugin
// answers with well-formed frames that fit the session, and stops at the
// first it cannot read.
func FuzzServeStep(f *testing.F) {
	round1 := appendStepRequest(nil, &Step{Round: 1}, false)
	round2 := appendStepRequest(nil, &Step{Round: 2, PrevArms: []int32{0, 1, 2}, PrevRewards: []float64{0.5, 0.25, 1}, WantDiag: true}, false)
	f.Add(append(slices.Clone(round1), round2...))
	f.Add(append(slices.Clone(round1), appendStepRequest(nil, &Step{Round: 2, PrevArms: []int32{0, 9, 2}, PrevRewards: []float64{0.5, 0.25, 1}}, false)...))
	srv := newFakeServer("a", "b")
	const n = 3
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := srv.Open(&pb.OpenRequest{Arms: 4, Horizon: 20, Replications: []uint64{0, 1, 2}, Family: "gaussian", NoiseSd: 1}, ProtocolVersion)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close(id)
		var out bytes.Buffer
		serveStep(srv, id, rwPair{bytes.NewReader(data), &out})
		in := bytes.NewReader(out.Bytes())
		var buf []byte
		for in.Len() > 0 {
			if buf, err = readFrame(in, buf, respFrameLimit(n, 2, false)); err != nil {
				t.Fatalf("the plugin wrote a bad frame: %v", err)
			}
			var r stepReply
			if decodeStepResponse(buf[4:], &r, n, 0, false) != nil && decodeStepResponse(buf[4:], &r, n, 2, false) != nil {
				t.Fatalf("the plugin wrote an answer that does not fit the session: %x", buf)
			}
		}
	})
}

// fakeServer is a Server standing in for the SDK's runner in this
// package's tests: every session, of immediate feedback, plays arm
// (round + i) mod arms for replication i, reports the round as every
// diagnostic, and refuses requests out of sequence or of the wrong shape
// with ErrInvalid, as the runner does.
type fakeServer struct {
	diags []string

	mu       sync.Mutex
	next     uint64
	sessions map[uint64]*fakeSession
}

func newFakeServer(diags ...string) *fakeServer {
	return &fakeServer{diags: diags, sessions: map[uint64]*fakeSession{}}
}

func (s *fakeServer) Describe() (*pb.DescribeResponse, error) {
	return &pb.DescribeResponse{Name: "fake", Diagnostics: s.diags, StepStream: true}, nil
}

func (s *fakeServer) Open(req *pb.OpenRequest, _ int) (uint64, error) {
	if req.GetArms() < 1 || req.GetHorizon() < 1 || len(req.GetReplications()) == 0 || req.GetFeedback() != nil {
		return 0, fmt.Errorf("%w: the fake server plays immediate feedback on at least one arm, round and replication", ErrInvalid)
	}
	n := len(req.GetReplications())
	fs := &fakeSession{n: n, arms: int(req.GetArms()), horizon: int(req.GetHorizon()), out: make([]int32, n), diag: make([][]float64, len(s.diags))}
	for d := range fs.diag {
		fs.diag[d] = make([]float64, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.sessions[s.next] = fs
	return s.next, nil
}

func (s *fakeServer) Session(id uint64) (Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fs := s.sessions[id]; fs != nil {
		return fs, nil
	}
	return nil, fmt.Errorf("%w: unknown session %d", ErrInvalid, id)
}

func (s *fakeServer) Close(id uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[id] == nil {
		return fmt.Errorf("%w: unknown session %d", ErrInvalid, id)
	}
	delete(s.sessions, id)
	return nil
}

// fakeSession is a session of fakeServer.
type fakeSession struct {
	n, arms, horizon int
	round            int // last round answered
	out              []int32
	diag             [][]float64
}

func (s *fakeSession) Replications() int { return s.n }
func (s *fakeSession) Delayed() bool     { return false }
func (s *fakeSession) Pending() int      { return 0 }
func (s *fakeSession) ContextWidth() int { return 0 }

func (s *fakeSession) Step(st *Step) (StepResult, error) {
	if st.Round != s.round+1 || st.Round > s.horizon {
		return StepResult{}, fmt.Errorf("%w: round %d requested after round %d (horizon %d)", ErrInvalid, st.Round, s.round, s.horizon)
	}
	want := s.n
	if st.Round == 1 {
		want = 0
	}
	if len(st.PrevArms) != want || len(st.PrevRewards) != want || len(st.Arrivals) != 0 {
		return StepResult{}, fmt.Errorf("%w: round %d: %d arms, %d rewards and %d arrivals, want %d arms and rewards",
			ErrInvalid, st.Round, len(st.PrevArms), len(st.PrevRewards), len(st.Arrivals), want)
	}
	for i, a := range st.PrevArms {
		if a < 0 || int(a) >= s.arms {
			return StepResult{}, fmt.Errorf("%w: round %d: replication %d: arm %d out of range", ErrInvalid, st.Round, i, a)
		}
	}
	for i := range s.out {
		s.out[i] = int32((st.Round + i) % s.arms)
	}
	s.round = st.Round
	res := StepResult{Arms: s.out}
	if st.WantDiag {
		for _, row := range s.diag {
			for i := range row {
				row[i] = float64(st.Round)
			}
		}
		res.Diagnostics = s.diag
	}
	return res, nil
}
