package wire

import (
	"io"
	"net"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/wire/pb"
)

// TestServeStepFrameLimit: the plugin side refuses a request frame longer
// than its session can need before allocating it, and says so.
func TestServeStepFrameLimit(t *testing.T) {
	srv := newFakeServer()
	id, err := srv.Open(&pb.OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: "gaussian", NoiseSd: 1}, ProtocolVersion)
	if err != nil {
		t.Fatal(err)
	}
	host, plug := socketPair(t)
	defer host.Close()
	done := make(chan struct{})
	var got uint64
	go func() {
		defer close(done)
		defer plug.Close()
		got = allocated(func() { serveStep(srv, id, plug) })
	}()
	// A header promising 200 MiB, 5 bytes, and the end of the stream.
	host.Write([]byte{0, 0, 0x80, 0x0c, 1, 0, 0, 0, 0})
	host.(*net.UnixConn).CloseWrite()
	reply, err := io.ReadAll(host)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	var r stepReply
	if len(reply) < 4 || decodeStepResponse(reply[4:], &r, 2, 0, false) != nil || r.status != frameInvalid || !strings.Contains(r.msg, "exceeds the limit") {
		t.Fatalf("reply %q, want an invalid-request frame naming the limit", reply)
	}
	if got > allocSlack {
		t.Errorf("refusing the frame allocated %d bytes", got)
	}
}
