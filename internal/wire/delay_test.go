package wire

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestArrivalFrameRoundTrip: a request frame with flag bit 1 carries the
// previous arms, no rewards and the arrivals, byte for byte as specified.
func TestArrivalFrameRoundTrip(t *testing.T) {
	arr := []Arrival{{Index: 0, Round: 1, Arm: 2, Reward: -0.5}, {Index: 2, Round: 1 << 40, Arm: 0, Reward: math.Inf(1)}}
	buf := appendStepRequest([]byte("stale"), &Step{Round: 9, PrevArms: []int32{1, 0, 2}, Arrivals: arr, WantDiag: true}, true)
	want := []byte{}
	want = le.AppendUint32(want, uint32(8+1+4+12+4+2*24))
	want = le.AppendUint64(want, 9)
	want = append(want, 3) // want diagnostics | arrivals follow
	want = le.AppendUint32(want, 3)
	for _, a := range []uint32{1, 0, 2} {
		want = le.AppendUint32(want, a)
	}
	want = le.AppendUint32(want, 2)
	for _, a := range arr {
		want = le.AppendUint32(want, uint32(a.Index))
		want = le.AppendUint64(want, uint64(a.Round))
		want = le.AppendUint32(want, uint32(a.Arm))
		want = le.AppendUint64(want, math.Float64bits(a.Reward))
	}
	if !bytes.Equal(buf, want) {
		t.Fatalf("frame\n%x\nwant\n%x", buf, want)
	}
	p, err := readFrame(bytes.NewReader(buf), nil, reqFrameLimitDelayed(3, 2, 0))
	if err != nil {
		t.Fatal(err)
	}
	var f stepFrame
	if err := decodeStepRequest(p[4:], &f, 3, 2, 0); err != nil {
		t.Fatal(err)
	}
	if !f.delayed || !f.WantDiag || f.Round != 9 || !slices.Equal(f.PrevArms, []int32{1, 0, 2}) || len(f.PrevRewards) != 0 || !slices.Equal(f.Arrivals, arr) {
		t.Fatalf("decoded %+v", f)
	}
	// One arrival more than pending: refused by its count, before
	// anything is allocated for the arrivals.
	var g stepFrame
	err = decodeStepRequest(p[4:], &g, 3, 1, 0)
	if err == nil || !strings.Contains(err.Error(), "2 arrivals, but only 1 rewards are pending") || cap(g.Arrivals) != 0 {
		t.Fatalf("2 arrivals with 1 pending: %v (allocated %d)", err, cap(g.Arrivals))
	}
	// A count announcing more arrivals than the frame holds.
	bad := slices.Clone(p[4:])
	le.PutUint32(bad[8+1+4+12:], 1<<31)
	if err := decodeStepRequest(bad, &g, 3, math.MaxInt32, 0); err == nil || cap(g.Arrivals) != 0 {
		t.Fatalf("huge count: %v (allocated %d)", err, cap(g.Arrivals))
	}
	// Without the bit the frame is protocol 1's.
	if old := appendStepRequest(nil, &Step{Round: 9, PrevArms: []int32{1}, PrevRewards: []float64{0.5}}, false); old[4+8] != 0 || len(old) != 4+13+12 {
		t.Fatalf("immediate frame changed: %x", old)
	}
}
