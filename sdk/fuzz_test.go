package sdk

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/regretbench/regretbench/sdk/internal/pb"
)

// The fuzz targets of every decoder of what the other side sends: the
// step socket's frames on both sides, and the gRPC answers the host
// checks itself. Their seed corpora, including the frames of issue 15,
// are in testdata/fuzz/<target>/ and run with every `go test`; to fuzz:
//
//	go test -run '^$' -fuzz FuzzDecodeStepResponse -fuzztime 60s ./sdk/
//
// Each target checks, besides not panicking, that whatever is accepted is
// exactly what the session expects and that nothing was allocated beyond
// what the session can need.

// FuzzReadFrame: a frame is read whole or refused, never longer than the
// session's limit, and its buffer is no larger than that limit needs.
func FuzzReadFrame(f *testing.F) {
	f.Add(appendStepRequest(nil, 3, []int32{1, 2}, []float64{0.5, -1}, true), uint32(reqFrameLimit(2)))
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}}), uint32(respFrameLimit(2, 0)))
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
	f.Add(appendStepRequest(nil, 1, nil, nil, false)[4:], uint16(2))
	f.Add(appendStepRequest(nil, 7, []int32{1, 0}, []float64{0.25, math.Inf(1)}, true)[4:], uint16(2))
	f.Add(appendStepRequestArrivals(nil, 7, []int32{1, 0}, []Arrival{{1, 3, 0, 0.5}}, true)[4:], uint16(2))
	f.Fuzz(func(t *testing.T, p []byte, n16 uint16) {
		n := int(n16)
		maxArr := 3 * n
		var fr stepFrame
		if err := decodeStepRequest(p, &fr, n, maxArr); err != nil {
			if cap(fr.arms) > 0 || cap(fr.rewards) > 0 || cap(fr.arrivals) > 0 {
				t.Fatalf("refused request allocated %d arms", cap(fr.arms))
			}
			return
		}
		want := slices.Clone(p)
		if fr.delayed {
			if len(fr.rewards) != 0 || (len(fr.arms) != n && len(fr.arms) != 0) || len(fr.arrivals) > maxArr {
				t.Fatalf("decoded %d arms, %d rewards and %d arrivals for a session of %d", len(fr.arms), len(fr.rewards), len(fr.arrivals), n)
			}
			want[8] &= 3
			if again := appendStepRequestArrivals(nil, fr.round, fr.arms, fr.arrivals, fr.wantDiag)[4:]; !bytes.Equal(again, want) {
				t.Fatalf("re-encoded %x, want %x", again, want)
			}
			return
		}
		if len(fr.arms) != len(fr.rewards) || (len(fr.arms) != n && len(fr.arms) != 0) || cap(fr.arms) > n {
			t.Fatalf("decoded %d arms and %d rewards (capacity %d) for a session of %d", len(fr.arms), len(fr.rewards), cap(fr.arms), n)
		}
		again := appendStepRequest(nil, fr.round, fr.arms, fr.rewards, fr.wantDiag)[4:]
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
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}})[4:], uint16(2), uint8(0))
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}, Diagnostics: [][]float64{{1, 2}, {math.NaN(), math.Copysign(0, -1)}}})[4:], uint16(2), uint8(2))
	f.Add(appendErrorResponse(nil, frameFailed, "the policy gave up")[4:], uint16(2), uint8(1))
	f.Fuzz(func(t *testing.T, p []byte, n16 uint16, nd uint8) {
		n, ndiag := int(n16), int(nd)%(MaxDiagnostics+1)
		var r stepReply
		if err := decodeStepResponse(p, &r, n, ndiag); err != nil {
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
		if again := appendStepResponse(nil, StepResult{Arms: r.arms, Diagnostics: r.diag})[4:]; !bytes.Equal(again, p) {
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
	round1 := appendStepRequest(nil, 1, nil, nil, false)
	round2 := appendStepRequest(nil, 2, []int32{0, 1, 2}, []float64{0.5, 0.25, 1}, true)
	f.Add(append(slices.Clone(round1), round2...))
	f.Add(append(slices.Clone(round1), appendStepRequest(nil, 2, []int32{0, 9, 2}, []float64{0.5, 0.25, 1}, false)...))
	c, err := newCore(Plugin{Name: "fuzz", Diagnostics: []string{"a", "b"}, NewBatch: func(s Session, _ []Replica) (BatchPolicy, error) {
		return stepFunc(func(st *BatchStep) error {
			for i := range st.Arms {
				st.Arms[i] = int32((st.Round + i) % s.Arms)
			}
			for _, row := range st.Diagnostics {
				for i := range row {
					row[i] = float64(st.Round)
				}
			}
			return nil
		}), nil
	}})
	if err != nil {
		f.Fatal(err)
	}
	const n = 3
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := c.open(&OpenRequest{Arms: 4, Horizon: 20, Replications: []uint64{0, 1, 2}, Family: Gaussian, NoiseSD: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.close(id)
		var out bytes.Buffer
		c.serveStep(id, rwPair{bytes.NewReader(data), &out})
		in := bytes.NewReader(out.Bytes())
		var buf []byte
		for in.Len() > 0 {
			if buf, err = readFrame(in, buf, respFrameLimit(n, 2)); err != nil {
				t.Fatalf("the plugin wrote a bad frame: %v", err)
			}
			var r stepReply
			if decodeStepResponse(buf[4:], &r, n, 0) != nil && decodeStepResponse(buf[4:], &r, n, 2) != nil {
				t.Fatalf("the plugin wrote an answer that does not fit the session: %x", buf)
			}
		}
	})
}

// FuzzDescribe (host side): a Describe answer is accepted only within
// the limits, with non-empty unique names.
func FuzzDescribe(f *testing.F) {
	seed := func(d *Description) []byte {
		r, err := toPBDescribe(d)
		if err != nil {
			f.Fatal(err)
		}
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed(&Description{Name: "remax", Version: "1.0.0", ProtocolVersion: 1, StepStream: true, SDK: SDKVersion,
		Params:      []Param{{Name: "c", Type: Float, Default: 1.0, Doc: "a constant"}, {Name: "k", Type: String, Default: "x"}},
		Diagnostics: []string{"support_size", "entropy"}}))
	f.Add(seed(&Description{Name: "many", Diagnostics: names(20000)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxDescribeMsg {
			return // gRPC refuses it before decoding
		}
		var r pb.DescribeResponse
		if proto.Unmarshal(b, &r) != nil {
			return
		}
		d := fromPBDescribe(&r)
		if checkDeclared(d.Name, d.Version, d.SDK, d.Params, d.Diagnostics) != nil {
			return
		}
		if d.Name == "" || len(d.Name) > MaxNameLen || len(d.Version) > MaxTextLen || len(d.SDK) > MaxTextLen ||
			len(d.Params) > MaxParams || len(d.Diagnostics) > MaxDiagnostics {
			t.Fatalf("accepted %d parameters, %d diagnostics, a name of %d bytes", len(d.Params), len(d.Diagnostics), len(d.Name))
		}
		seen := map[string]bool{}
		for _, p := range d.Params {
			if p.Name == "" || len(p.Name) > MaxNameLen || len(p.Doc) > MaxTextLen || seen["p"+p.Name] {
				t.Fatalf("accepted parameter %q", p.Name)
			}
			seen["p"+p.Name] = true
		}
		for _, n := range d.Diagnostics {
			if n == "" || len(n) > MaxNameLen || seen["d"+n] {
				t.Fatalf("accepted diagnostic %q", n)
			}
			seen["d"+n] = true
		}
	})
}

// FuzzStepResponsePB (host side): a gRPC Step answer is accepted only with
// an arm per replication and exactly the expected diagnostics, each with
// a value per replication; anything else is a PluginError naming the
// round.
func FuzzStepResponsePB(f *testing.F) {
	seed := func(r *pb.StepResponse) []byte {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed(&pb.StepResponse{Arms: []int32{1, 0}}), uint8(2), uint8(0), false)
	f.Add(seed(&pb.StepResponse{Arms: []int32{1, 0}, Diagnostics: []*pb.Diagnostic{{Name: "a", Values: []float64{1, 2}}}}), uint8(2), uint8(1), true)
	f.Add(seed(&pb.StepResponse{Arms: []int32{1, 0}, Diagnostics: []*pb.Diagnostic{{Name: "a", Values: []float64{1, 2}}}}), uint8(2), uint8(1), false)
	f.Fuzz(func(t *testing.T, b []byte, n8, nd uint8, want bool) {
		n, ndiag := int(n8), int(nd)%(MaxDiagnostics+1)
		if len(b) > stepMsgLimit(n, ndiag) {
			return // gRPC refuses it before decoding
		}
		var resp pb.StepResponse
		if proto.Unmarshal(b, &resp) != nil {
			return
		}
		s := &clientSession{c: &Client{path: "fuzz", tail: newRingBuffer(1024)}, n: n, ndiag: ndiag}
		res, err := s.grpcResult(7, &resp, want)
		if err != nil {
			var pe *PluginError
			if !errors.As(err, &pe) || pe.Op != "step round 7" {
				t.Fatalf("error %v is not a PluginError naming the round", err)
			}
			return
		}
		wantDiag := 0
		if want {
			wantDiag = ndiag
		}
		if len(res.Arms) != n || len(res.Diagnostics) != wantDiag {
			t.Fatalf("accepted %d arms and %d diagnostics for %d replications and %d diagnostics", len(res.Arms), len(res.Diagnostics), n, wantDiag)
		}
		for d, row := range res.Diagnostics {
			if len(row) != n {
				t.Fatalf("diagnostic %d: accepted %d values for %d replications", d, len(row), n)
			}
		}
	})
}

// FuzzStepRequestPB (plugin side): whatever gRPC Step request follows
// round 1, the plugin answers it in the session's shape or refuses it,
// and never panics.
func FuzzStepRequestPB(f *testing.F) {
	seed := func(r *pb.StepRequest) []byte {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 2}, PrevRewards: []float64{1, 2, 3}, WantDiagnostics: true}), true)
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 7}, PrevRewards: []float64{1, 2}}), true)
	c, err := newCore(Plugin{Name: "fuzz", Diagnostics: []string{"a"}, New: func(s Session, r Replica) (Policy, error) {
		return &diagPolicy{k: s.Arms}, nil
	}})
	if err != nil {
		f.Fatal(err)
	}
	srv := &grpcServer{c: c}
	const n = 3
	f.Fuzz(func(t *testing.T, b []byte, ours bool) {
		var req pb.StepRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		id, err := c.open(&OpenRequest{Arms: 4, Horizon: 20, InitPulls: 1, Replications: []uint64{0, 1, 2}, Family: Gaussian, NoiseSD: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.close(id)
		var resp pb.StepResponse
		if err := srv.step(&pb.StepRequest{SessionId: id, Round: 1}, &resp); err != nil {
			t.Fatal(err)
		}
		if ours {
			req.SessionId = id
		}
		if err := srv.step(&req, &resp); err != nil {
			return
		}
		if len(resp.Arms) != n {
			t.Fatalf("answered %d arms for %d replications", len(resp.Arms), n)
		}
		for _, d := range resp.Diagnostics {
			if len(d.Values) != n {
				t.Fatalf("answered %d values of %q for %d replications", len(d.Values), d.Name, n)
			}
		}
	})
}

// diagPolicy is a constPolicy with a diagnostic.
type diagPolicy struct{ k int }

func (p *diagPolicy) Select(t int) int          { return t % p.k }
func (p *diagPolicy) Observe(int, int, float64) {}
func (p *diagPolicy) Diagnose(out []float64)    { out[0] = 1 }
