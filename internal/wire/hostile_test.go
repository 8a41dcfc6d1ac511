package wire

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocSlack is the most a rejected frame may cost in allocations,
// including what other goroutines allocate meanwhile: far below the
// gigabytes the frames of issue 15 made the host allocate.
const allocSlack = 4 << 20

// frameOf prefixes payload with its length.
func frameOf(payload ...byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

// rawPeer returns the host's end of a step socket of a session of two
// replications, without diagnostics, whose plugin end reads one request
// frame and answers it with frame, then hangs up.
func rawPeer(t *testing.T, frame []byte) *StepSocket {
	t.Helper()
	host, peer := net.Pipe()
	go func() {
		defer peer.Close()
		var hdr [4]byte
		if _, err := io.ReadFull(peer, hdr[:]); err != nil {
			return
		}
		if _, err := io.ReadFull(peer, make([]byte, binary.LittleEndian.Uint32(hdr[:]))); err != nil {
			return
		}
		peer.Write(frame)
	}()
	ss := &StepSocket{conn: netStepConn{host}, n: 2}
	t.Cleanup(func() { ss.Close() })
	return ss
}

// TestRawResponseFrames: the host's end of the step socket refuses a
// hand-made answer that does not fit the session, saying what is wrong,
// and costs no more memory than a well-formed frame (issue 15, item 1:
// 13 bytes made bench allocate 100 GB and die). internal/client checks that
// the refusal reaches bench as the plugin's error for that round.
func TestRawResponseFrames(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame []byte
		want  string
	}{
		// status 0, 0 arms, 0xFFFFFFFF diagnostics: the 13-byte frame.
		{"13 bytes: 0 arms, 2^32-1 diagnostics", frameOf(0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), "returned 0 arms for 2 replications"},
		{"2 arms, 2^32-1 diagnostics", frameOf(0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), "returned 4294967295 diagnostics where none were asked for"},
		// A 9-byte frame whose header promises 256 MiB.
		{"9 bytes: a 256 MiB header", []byte{0, 0, 0, 0x10, 0, 0, 0, 0, 0}, "exceeds the limit"},
		{"2^32-1 arms", frameOf(0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0), "returned 4294967295 arms for 2 replications"},
		{"diagnostics not asked for", appendStepResponse(nil, StepResult{Arms: []int32{0, 1}, Diagnostics: [][]float64{{1, 2}}}, false), "returned 1 diagnostics where none were asked for"},
		{"3 arms", appendStepResponse(nil, StepResult{Arms: []int32{0, 1, 1}}, false), "returned 3 arms for 2 replications"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ss := rawPeer(t, c.frame)
			var err error
			got := allocated(func() {
				_, err = ss.Step(context.Background(), &Step{Round: 2, PrevArms: []int32{0, 1}, PrevRewards: []float64{0, 0}})
			})
			if err == nil || !strings.HasPrefix(err.Error(), "step socket: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Step: %v, want a step socket error containing %q", err, c.want)
			}
			if _, ok := err.(*RemoteError); ok {
				t.Fatalf("Step: %v is a RemoteError: the plugin did not answer with an error", err)
			}
			if got > allocSlack {
				t.Errorf("refusing the frame allocated %d bytes", got)
			}
		})
	}
}
