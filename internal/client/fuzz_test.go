package client

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
	"github.com/regretbench/regretbench/sdk"
)

// The fuzz targets of the host's checks of the gRPC answers a plugin
// sends (the step socket's frames are fuzzed in internal/wire). Their
// seed corpora are in testdata/fuzz/<target>/ and run with every
// `go test`; to fuzz:
//
//	go test -run '^$' -fuzz FuzzStepResponsePB -fuzztime 60s ./internal/client/

// FuzzDescribe (host side): a Describe answer is accepted only within
// the limits, with non-empty unique names.
func FuzzDescribe(f *testing.F) {
	seed := func(p sdk.Plugin) []byte {
		b, err := proto.Marshal(describeOf(f, p))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed(sdk.Plugin{Name: "remax", Version: "1.0.0",
		Params:      []sdk.Param{{Name: "c", Type: sdk.Float, Default: 1.0, Doc: "a constant"}, {Name: "k", Type: sdk.String, Default: "x"}},
		Diagnostics: []string{"support_size", "entropy"}}))
	f.Add(seed(sdk.Plugin{Name: "many", Diagnostics: names(20000)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > wire.MaxDescribeMsg {
			return // gRPC refuses it before decoding
		}
		var r pb.DescribeResponse
		if proto.Unmarshal(b, &r) != nil {
			return
		}
		// What Client.Describe does with the answer.
		if wire.CheckDescribe(&r) != nil {
			return
		}
		d := protoconv.FromDescribe(&r)
		if d.Name == "" || len(d.Name) > wire.MaxNameLen || len(d.Version) > wire.MaxTextLen || len(d.SDK) > wire.MaxTextLen ||
			len(d.Params) > wire.MaxParams || len(d.Diagnostics) > wire.MaxDiagnostics {
			t.Fatalf("accepted %d parameters, %d diagnostics, a name of %d bytes", len(d.Params), len(d.Diagnostics), len(d.Name))
		}
		seen := map[string]bool{}
		for _, p := range d.Params {
			if p.Name == "" || len(p.Name) > wire.MaxNameLen || len(p.Doc) > wire.MaxTextLen || seen["p"+p.Name] {
				t.Fatalf("accepted parameter %q", p.Name)
			}
			seen["p"+p.Name] = true
		}
		for _, n := range d.Diagnostics {
			if n == "" || len(n) > wire.MaxNameLen || seen["d"+n] {
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
		n, ndiag := int(n8), int(nd)%(wire.MaxDiagnostics+1)
		if len(b) > wire.StepMsgLimit(n, ndiag, false) {
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
