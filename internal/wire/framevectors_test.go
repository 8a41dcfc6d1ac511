package wire

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// vectorsFile holds the step socket's frame vectors, which the Go and the
// Python SDK's tests both check: they live with the protocol's other
// public files, beside sdk/proto. contextualVectorsFile holds those of
// contextual sessions (protocol 3), in a file of their own so that an SDK
// of protocol 2 checks vectorsFile as it stands.
const (
	vectorsFile           = "../../sdk/testdata/frames/vectors.json"
	contextualVectorsFile = "../../sdk/testdata/frames/contextual.json"
)

// frameVector is one entry of vectorsFile, the byte-level
// test vectors of the step socket (docs/step-socket.md) that this SDK and
// the Python SDK (sdk/python/tests/test_frames.py) both check.
type frameVector struct {
	Name        string      `json:"name"`
	Direction   string      `json:"direction"` // "request" or "response"
	Hex         string      `json:"hex"`       // the whole frame, length prefix included
	Invalid     bool        `json:"invalid"`   // the decoder must refuse it
	Round       int         `json:"round"`
	WantDiag    bool        `json:"want_diagnostics"`
	Arms        []int32     `json:"arms"`
	Rewards     []float64   `json:"rewards"`
	Delayed     bool        `json:"delayed"`      // flag bit 1 (protocol 2): arrivals, no rewards
	Arrivals    []Arrival   `json:"arrivals"`     // {"index", "round", "arm", "reward"}
	MaxArrivals *int        `json:"max_arrivals"` // the decoder's bound on arrivals; 1024 when absent
	Status      byte        `json:"status"`
	Diagnostics [][]float64 `json:"diagnostics"`
	Message     string      `json:"message"`
	// Contextual sessions (contextualVectorsFile): a request's session
	// has Replications replications (the frame's count is 0 in round 1)
	// with contexts of Width values each; a response with Contextual
	// set belongs to a contextual session.
	Replications *int      `json:"replications"`
	Width        int       `json:"width"`
	Contexts     []float64 `json:"contexts"`
	Contextual   bool      `json:"contextual"`
	Probs        []float64 `json:"probs"`
}

func loadFrameVectors(t *testing.T) []frameVector {
	t.Helper()
	var all []frameVector
	for _, path := range []string{vectorsFile, contextualVectorsFile} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Vectors []frameVector `json:"vectors"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(file.Vectors) == 0 {
			t.Fatalf("%s: no vectors", path)
		}
		all = append(all, file.Vectors...)
	}
	return all
}

// The decoders under test, in one place: a session's replication count
// and diagnostics count are those the vector's frame announces.
// decodeVectorRequest and decodeVectorResponse decode a vector as a
// session of the size the frame itself announces would.
func decodeVectorRequest(p []byte, f *stepFrame, v frameVector) error {
	n := 0
	if len(p) >= 13 {
		n = int(le.Uint32(p[9:]))
	}
	if v.Replications != nil {
		n = *v.Replications
	}
	maxArrivals := 1024 // the vectors hold no more arrivals
	if v.MaxArrivals != nil {
		maxArrivals = *v.MaxArrivals
	}
	return decodeStepRequest(p, f, n, maxArrivals, v.Width)
}

func decodeVectorResponse(p []byte, r *stepReply, v frameVector) error {
	n, d := 0, 0
	if len(p) >= 5 && p[0] == frameOK {
		n = int(le.Uint32(p[1:]))
	}
	if len(p) >= 9+4*n && p[0] == frameOK {
		d = int(le.Uint32(p[5+4*n:]))
	}
	return decodeStepResponse(p, r, n, d, v.Contextual)
}

// TestFrameVectors: this SDK encodes every valid vector's fields to its
// bytes exactly, decodes its bytes to its fields, and refuses every
// invalid vector.
func TestFrameVectors(t *testing.T) {
	for _, v := range loadFrameVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			frame, err := hex.DecodeString(v.Hex)
			if err != nil {
				t.Fatalf("hex: %v", err)
			}
			// The length prefix frames the payload: readFrame returns the
			// frame whole.
			got, err := readFrame(bytes.NewReader(frame), nil, 4+maxFrame)
			if err != nil || !bytes.Equal(got, frame) {
				t.Fatalf("readFrame: %x, %v; want the frame %x", got, err, frame)
			}
			payload := frame[4:]
			switch {
			case v.Direction == "request" && v.Invalid:
				var f stepFrame
				if err := decodeVectorRequest(payload, &f, v); err == nil {
					t.Errorf("decodeStepRequest accepted an invalid frame: %+v", f)
				}
			case v.Direction == "request":
				var enc []byte
				if v.Delayed {
					enc = appendStepRequest(nil, &Step{Round: v.Round, PrevArms: v.Arms, Arrivals: v.Arrivals, WantDiag: v.WantDiag, Contexts: v.Contexts}, true)
				} else {
					enc = appendStepRequest(nil, &Step{Round: v.Round, PrevArms: v.Arms, PrevRewards: v.Rewards, WantDiag: v.WantDiag, Contexts: v.Contexts}, false)
				}
				if !bytes.Equal(enc, frame) {
					t.Errorf("encoding:\n got  %x\n want %x", enc, frame)
				}
				var f stepFrame
				if err := decodeVectorRequest(payload, &f, v); err != nil {
					t.Fatalf("decodeStepRequest: %v", err)
				}
				if f.Round != v.Round || f.WantDiag != v.WantDiag || f.delayed != v.Delayed || !equalOrEmpty(f.PrevArms, v.Arms) || !equalOrEmpty(f.PrevRewards, v.Rewards) {
					t.Errorf("decodeStepRequest: round %d diag %v delayed %v arms %v rewards %v; want %d %v %v %v %v",
						f.Round, f.WantDiag, f.delayed, f.PrevArms, f.PrevRewards, v.Round, v.WantDiag, v.Delayed, v.Arms, v.Rewards)
				}
				if f.delayed && !equalOrEmpty(f.Arrivals, v.Arrivals) {
					t.Errorf("decodeStepRequest: arrivals %+v, want %+v", f.Arrivals, v.Arrivals)
				}
				if !equalOrEmpty(f.Contexts, v.Contexts) || (f.Contexts != nil) != (v.Width > 0) {
					t.Errorf("decodeStepRequest: contexts %v, want %v", f.Contexts, v.Contexts)
				}
			case v.Direction == "response" && v.Invalid:
				var r stepReply
				if err := decodeVectorResponse(payload, &r, v); err == nil {
					t.Errorf("decodeStepResponse accepted an invalid frame: %+v", r)
				}
			case v.Direction == "response":
				var enc []byte
				if v.Status == frameOK {
					enc = appendStepResponse(nil, StepResult{Arms: v.Arms, Diagnostics: v.Diagnostics, Probs: v.Probs}, v.Contextual)
				} else {
					enc = appendErrorResponse(nil, v.Status, v.Message)
				}
				if !bytes.Equal(enc, frame) {
					t.Errorf("encoding:\n got  %x\n want %x", enc, frame)
				}
				var r stepReply
				if err := decodeVectorResponse(payload, &r, v); err != nil {
					t.Fatalf("decodeStepResponse: %v", err)
				}
				if r.status != v.Status {
					t.Fatalf("status %d, want %d", r.status, v.Status)
				}
				if v.Status != frameOK {
					if r.msg != v.Message {
						t.Errorf("message %q, want %q", r.msg, v.Message)
					}
					return
				}
				if !equalOrEmpty(r.probs, v.Probs) {
					t.Errorf("probabilities %v, want %v", r.probs, v.Probs)
				}
				if !equalOrEmpty(r.arms, v.Arms) || len(r.diag) != len(v.Diagnostics) {
					t.Fatalf("arms %v and %d diagnostics, want %v and %d", r.arms, len(r.diag), v.Arms, len(v.Diagnostics))
				}
				for d := range r.diag {
					if !reflect.DeepEqual(r.diag[d], v.Diagnostics[d]) {
						t.Errorf("diagnostic %d: %v, want %v", d, r.diag[d], v.Diagnostics[d])
					}
				}
			default:
				t.Fatalf("unknown direction %q", v.Direction)
			}
		})
	}
}

// equalOrEmpty compares slices, nil and empty alike.
func equalOrEmpty[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
