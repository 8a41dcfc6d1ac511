package wire

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestStepFrameRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name     string
		round    int
		arms     []int32
		rewards  []float64
		wantDiag bool
	}{
		{"first round", 1, nil, nil, false},
		{"one replication", 7, []int32{2}, []float64{-0.5}, true},
		{"specials", 1 << 40, []int32{0, 1<<31 - 1, 3}, []float64{math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := appendStepRequest([]byte("stale bytes"), &Step{Round: c.round, PrevArms: c.arms, PrevRewards: c.rewards, WantDiag: c.wantDiag}, false)
			p, err := readFrame(bytes.NewReader(buf), nil, reqFrameLimit(len(c.arms), 0))
			if err != nil {
				t.Fatal(err)
			}
			var f stepFrame
			if err := decodeStepRequest(p[4:], &f, len(c.arms), 0, 0); err != nil {
				t.Fatal(err)
			}
			if f.Round != c.round || f.WantDiag != c.wantDiag || len(f.PrevArms) != len(c.arms) || len(f.PrevRewards) != len(c.rewards) {
				t.Fatalf("decoded %+v from %+v", f, c)
			}
			for i := range c.arms {
				if f.PrevArms[i] != c.arms[i] || math.Float64bits(f.PrevRewards[i]) != math.Float64bits(c.rewards[i]) {
					t.Fatalf("replication %d: got (%d, %v), want (%d, %v)", i, f.PrevArms[i], f.PrevRewards[i], c.arms[i], c.rewards[i])
				}
			}
		})
	}
}

func TestStepReplyRoundTrip(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000123) // a NaN payload survives
	for _, res := range []StepResult{
		{Arms: []int32{}},
		{Arms: []int32{4, 0, 9}},
		{Arms: []int32{1, 2}, Diagnostics: [][]float64{{0.25, nan}, {-1, 1e-300}}},
	} {
		buf := appendStepResponse(nil, res, false)
		p, err := readFrame(bytes.NewReader(buf), nil, respFrameLimit(len(res.Arms), len(res.Diagnostics), false))
		if err != nil {
			t.Fatal(err)
		}
		var r stepReply
		r.diag = [][]float64{{7, 7, 7}, {7}, {7}} // stale rows are resized away
		if err := decodeStepResponse(p[4:], &r, len(res.Arms), len(res.Diagnostics), false); err != nil {
			t.Fatal(err)
		}
		if r.status != frameOK || !slices.Equal(r.arms, res.Arms) || len(r.diag) != len(res.Diagnostics) {
			t.Fatalf("decoded %+v from %+v", r, res)
		}
		for d := range r.diag {
			for i, v := range r.diag[d] {
				if math.Float64bits(v) != math.Float64bits(res.Diagnostics[d][i]) {
					t.Fatalf("diagnostic %d, replication %d: %v, want %v", d, i, v, res.Diagnostics[d][i])
				}
			}
		}
	}
	for _, status := range []byte{frameFailed, frameInvalid} {
		p, _ := readFrame(bytes.NewReader(appendErrorResponse(nil, status, "round 3: boom")), nil, respFrameLimit(1, 0, false))
		var r stepReply
		if err := decodeStepResponse(p[4:], &r, 1, 0, false); err != nil || r.status != status || r.msg != "round 3: boom" {
			t.Fatalf("status %d: decoded %+v, %v", status, r, err)
		}
	}
}

// TestBadFrames: every malformed frame is an error naming what is wrong,
// never a panic or a huge allocation.
func TestBadFrames(t *testing.T) {
	req := appendStepRequest(nil, &Step{Round: 5, PrevArms: []int32{1, 2}, PrevRewards: []float64{0.5, 0.25}}, false)
	resp := appendStepResponse(nil, StepResult{Arms: []int32{1, 2}, Diagnostics: [][]float64{{1, 2}}}, false)
	for _, c := range []struct {
		name  string
		frame []byte
		read  bool // the error comes from readFrame
		isReq bool
		want  string
	}{
		{"cut header", req[:3], true, true, "EOF"},
		{"cut payload", req[:len(req)-1], true, true, "unexpected EOF"},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff}, true, true, "exceeds the limit"},
		{"bytes after the frame", append(append([]byte(nil), req...), req[:5]...), true, true, "5 bytes follow a frame"},
		{"short request", endFrame(append(beginFrame(nil), 1, 2, 3)), false, true, "truncated"},
		{"request count", endFrame(append(append([]byte(nil), req...), 0)), false, true, "for 2 replications"},
		{"empty response", endFrame(beginFrame(nil)), false, false, "truncated"},
		{"unknown status", endFrame(append(beginFrame(nil), 9)), false, false, "unknown response status 9"},
		{"response arms", endFrame(append(beginFrame(nil), frameOK, 200, 0, 0, 0)), false, false, "returned 200 arms for 2 replications"},
		{"cut arms", endFrame(append(beginFrame(nil), frameOK, 2, 0, 0, 0, 1, 0)), false, false, "truncated"},
		{"request for 3", endFrame(append(beginFrame(nil), 5, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0)), false, true, "request frame for 3 replications in a session of 2"},
		{"response diagnostics", endFrame(append(append([]byte(nil), resp...), 0)), false, false, "diagnostics bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := readFrame(bytes.NewReader(c.frame), nil, maxFrame)
			if !c.read {
				if err != nil {
					t.Fatalf("readFrame: %v", err)
				}
				if c.isReq {
					err = decodeStepRequest(p[4:], &stepFrame{}, 2, 0, 0)
				} else {
					err = decodeStepResponse(p[4:], &stepReply{}, 2, 1, false)
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestReadFrameReuse: frames arriving a byte at a time, larger than the
// buffer, and smaller after larger ones, all read whole into one reused
// buffer.
func TestReadFrameReuse(t *testing.T) {
	var buf []byte
	for _, n := range []int{3, 2000, 1, 0, 700} {
		arms := make([]int32, n)
		rewards := make([]float64, n)
		for i := range arms {
			arms[i], rewards[i] = int32(i%7), float64(i)/3
		}
		want := appendStepRequest(nil, &Step{Round: n + 1, PrevArms: arms, PrevRewards: rewards, WantDiag: n%2 == 0}, false)
		for _, r := range []io.Reader{bytes.NewReader(want), iotest.OneByteReader(bytes.NewReader(want))} {
			var err error
			if buf, err = readFrame(r, buf, reqFrameLimit(n, 0)); err != nil {
				t.Fatalf("%d replications: %v", n, err)
			}
			if !bytes.Equal(buf, want) {
				t.Fatalf("%d replications: read %d bytes, want the %d of the frame", n, len(buf), len(want))
			}
		}
	}
}
