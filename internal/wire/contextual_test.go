package wire

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestContextualFrameRoundTrip: a contextual session's requests carry
// every replication's context after the rewards or arrivals (flag bit 2),
// its answers the probabilities after the diagnostics, and both decode to
// what was encoded, bit for bit.
func TestContextualFrameRoundTrip(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000042)
	for _, c := range []struct {
		name    string
		st      Step
		delayed bool
		n       int
		width   int
	}{
		{"round 1", Step{Round: 1, Contexts: []float64{1, 2, 3, 4, 5, 6}}, false, 3, 2},
		{"later round", Step{Round: 9, PrevArms: []int32{0, 4}, PrevRewards: []float64{0.5, -2}, WantDiag: true, Contexts: []float64{nan, math.Inf(-1), 0, math.Copysign(0, -1)}}, false, 2, 2},
		{"arrivals", Step{Round: 4, PrevArms: []int32{1, 0}, Arrivals: []Arrival{{0, 2, 1, 0.25}, {1, 3, 0, 1}}, Contexts: []float64{7, 8}}, true, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := appendStepRequest(nil, &c.st, c.delayed)
			if buf[4+8]&flagContexts == 0 {
				t.Fatalf("flags %#x: bit 2 not set", buf[4+8])
			}
			limit := reqFrameLimit(c.n, c.width)
			if c.delayed {
				limit = reqFrameLimitDelayed(c.n, 10, c.width)
			}
			p, err := readFrame(bytes.NewReader(buf), nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			f := stepFrame{Step: Step{Contexts: make([]float64, 1, 100)}} // reused, not reallocated
			if err := decodeStepRequest(p[4:], &f, c.n, 10, c.width); err != nil {
				t.Fatal(err)
			}
			if len(f.Contexts) != len(c.st.Contexts) {
				t.Fatalf("decoded %d contexts, want %d", len(f.Contexts), len(c.st.Contexts))
			}
			for i, x := range c.st.Contexts {
				if math.Float64bits(f.Contexts[i]) != math.Float64bits(x) {
					t.Errorf("context value %d: %v, want %v", i, f.Contexts[i], x)
				}
			}
			if cap(f.Contexts) != 100 {
				t.Errorf("contexts reallocated: capacity %d", cap(f.Contexts))
			}
			if f.Round != c.st.Round || f.delayed != c.delayed || !slices.Equal(f.PrevArms, c.st.PrevArms) || len(f.Arrivals) != len(c.st.Arrivals) {
				t.Errorf("decoded %+v from %+v", f, c.st)
			}
			// The same frame in a context-free session is refused, as is
			// the context-free frame in this contextual session.
			if err := decodeStepRequest(p[4:], &stepFrame{}, c.n, 10, 0); err == nil || !strings.Contains(err.Error(), "context-free session") {
				t.Errorf("context-free session: %v", err)
			}
			plain := c.st
			plain.Contexts = nil
			q := appendStepRequest(nil, &plain, c.delayed)
			if err := decodeStepRequest(q[4:], &stepFrame{}, c.n, 10, c.width); err == nil || !strings.Contains(err.Error(), "without contexts") {
				t.Errorf("a frame without contexts: %v", err)
			}
		})
	}
	for _, res := range []StepResult{
		{Arms: []int32{1, 2}},
		{Arms: []int32{1, 2}, Probs: []float64{1, 0.125}},
		{Arms: []int32{0, 3}, Diagnostics: [][]float64{{1, nan}}, Probs: []float64{0, 1e-300}},
	} {
		buf := appendStepResponse(nil, res, true)
		p, err := readFrame(bytes.NewReader(buf), nil, respFrameLimit(2, len(res.Diagnostics), true))
		if err != nil {
			t.Fatal(err)
		}
		r := stepReply{probs: []float64{9, 9, 9}}
		if err := decodeStepResponse(p[4:], &r, 2, len(res.Diagnostics), true); err != nil {
			t.Fatalf("%+v: %v", res, err)
		}
		if !slices.Equal(r.arms, res.Arms) || !slices.Equal(r.probs, res.Probs) {
			t.Errorf("decoded arms %v probs %v from %+v", r.arms, r.probs, res)
		}
		// A context-free session's decoder refuses the trailing probabilities.
		if err := decodeStepResponse(p[4:], &stepReply{}, 2, len(res.Diagnostics), false); err == nil {
			t.Errorf("%+v: accepted by a context-free session", res)
		}
	}
}

// TestContextFreeFramesUnchanged: a context-free session's frames are
// byte for byte those of protocols 1 and 2, whatever the Step's unused
// fields hold.
func TestContextFreeFramesUnchanged(t *testing.T) {
	st := &Step{Round: 3, PrevArms: []int32{1, 0}, PrevRewards: []float64{0.5, 1}, WantDiag: true}
	want := []byte{4 + 8 + 1 + 4 + 8 + 16 - 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, flagWantDiag, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	got := appendStepRequest(nil, st, false)
	if !bytes.Equal(got[:len(want)], want) || len(got) != 4+13+24 {
		t.Fatalf("request %x", got)
	}
	resp := appendStepResponse(nil, StepResult{Arms: []int32{1, 0}, Probs: []float64{0.5, 0.5}}, false)
	if len(resp) != 4+1+4+8+4 {
		t.Fatalf("a context-free answer carries probabilities: %x", resp)
	}
}

// TestContextualBadFrames: every malformed contextual frame is an error
// naming what is wrong, before anything is allocated by its counts.
func TestContextualBadFrames(t *testing.T) {
	good := appendStepRequest(nil, &Step{Round: 5, PrevArms: []int32{1, 2}, PrevRewards: []float64{0.5, 0.25}, Contexts: []float64{1, 2, 3, 4}}, false)
	hugeCount := slices.Clone(good)
	le.PutUint32(hugeCount[len(hugeCount)-4*8-4:], math.MaxUint32)
	for _, c := range []struct {
		name  string
		frame []byte
		width int
		want  string
	}{
		{"wrong width", good, 3, "context values"},
		{"huge count", hugeCount, 2, "4294967295 context values"},
		{"cut contexts", endFrame(slices.Clone(good[:len(good)-8])), 2, "context values"},
		{"extra bytes", endFrame(append(slices.Clone(good), 0)), 2, "context values"},
		{"no room", endFrame(append(beginFrame(nil), good[4:4+13]...)), 2, "too short for the contexts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := stepFrame{}
			err := decodeStepRequest(c.frame[4:], &f, 2, 0, c.width)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if cap(f.PrevArms) != 0 || cap(f.Contexts) != 0 {
				t.Fatalf("refused frame allocated %d arms and %d contexts", cap(f.PrevArms), cap(f.Contexts))
			}
		})
	}
	resp := appendStepResponse(nil, StepResult{Arms: []int32{1, 2}, Probs: []float64{0.5, 1}}, true)
	oneProb := appendStepResponse(nil, StepResult{Arms: []int32{1, 2}, Probs: []float64{0.5}}, true)
	for _, c := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"one probability of two", oneProb, "returned 1 probabilities for 2 replications"},
		{"cut probabilities", endFrame(slices.Clone(resp[:len(resp)-1])), "bytes of probabilities"},
		{"no count", appendStepResponse(nil, StepResult{Arms: []int32{1, 2}}, false), "truncated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := decodeStepResponse(c.frame[4:], &stepReply{}, 2, 0, true)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// FuzzDecodeContextualStepRequest (plugin side): a contextual session's
// request is accepted only with exactly n x width contexts, and then
// re-encodes to the same bytes; a refused one allocated nothing.
func FuzzDecodeContextualStepRequest(f *testing.F) {
	f.Add(appendStepRequest(nil, &Step{Round: 1, Contexts: []float64{1, 2, 3, 4}}, false)[4:], uint16(2), uint8(2))
	f.Add(appendStepRequest(nil, &Step{Round: 7, PrevArms: []int32{1, 0}, PrevRewards: []float64{0.25, 1}, Contexts: []float64{1, 2}}, false)[4:], uint16(2), uint8(1))
	f.Add(appendStepRequest(nil, &Step{Round: 7, PrevArms: []int32{1, 0}, Arrivals: []Arrival{{1, 3, 0, 0.5}}, Contexts: []float64{1, 2}}, true)[4:], uint16(2), uint8(1))
	f.Fuzz(func(t *testing.T, p []byte, n16 uint16, w8 uint8) {
		n, width := int(n16), int(w8)
		var fr stepFrame
		if err := decodeStepRequest(p, &fr, n, 3*n, width); err != nil {
			if cap(fr.PrevArms) > 0 || cap(fr.PrevRewards) > 0 || cap(fr.Arrivals) > 0 || cap(fr.Contexts) > 0 {
				t.Fatalf("refused request allocated")
			}
			return
		}
		if width == 0 {
			if fr.Contexts != nil {
				t.Fatalf("contexts in a context-free session")
			}
			return
		}
		if len(fr.Contexts) != n*width || cap(fr.Contexts) > n*width {
			t.Fatalf("decoded %d contexts (capacity %d) for %d replications of width %d", len(fr.Contexts), cap(fr.Contexts), n, width)
		}
		want := slices.Clone(p)
		want[8] &= 7
		if n*width == 0 {
			return // no contexts to re-encode: the encoder sets no flag
		}
		if again := appendStepRequest(nil, &fr.Step, fr.delayed)[4:]; !bytes.Equal(again, want) {
			t.Fatalf("re-encoded %x, want %x", again, want)
		}
	})
}

// FuzzDecodeContextualStepResponse (host side): a contextual session's
// answer is accepted only with none or n probabilities, and re-encodes to
// the same bytes.
func FuzzDecodeContextualStepResponse(f *testing.F) {
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}, Probs: []float64{1, 0.5}}, true)[4:], uint16(2), uint8(0))
	f.Add(appendStepResponse(nil, StepResult{Arms: []int32{1, 0}, Diagnostics: [][]float64{{1, 2}}}, true)[4:], uint16(2), uint8(1))
	f.Fuzz(func(t *testing.T, p []byte, n16 uint16, nd uint8) {
		n, ndiag := int(n16), int(nd)%(MaxDiagnostics+1)
		var r stepReply
		if err := decodeStepResponse(p, &r, n, ndiag, true); err != nil {
			if cap(r.arms) > n || cap(r.diag) > ndiag || cap(r.probs) > 0 {
				t.Fatalf("refused answer allocated %d arms, %d diagnostics and %d probabilities", cap(r.arms), cap(r.diag), cap(r.probs))
			}
			return
		}
		if r.status != frameOK {
			return
		}
		if len(r.probs) != 0 && len(r.probs) != n || cap(r.probs) > n {
			t.Fatalf("decoded %d probabilities for %d replications", len(r.probs), n)
		}
		if again := appendStepResponse(nil, StepResult{Arms: r.arms, Diagnostics: r.diag, Probs: r.probs}, true)[4:]; !bytes.Equal(again, p) {
			t.Fatalf("re-encoded %x, want %x", again, p)
		}
	})
}
