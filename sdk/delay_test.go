package sdk

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/sdk/internal/pb"
	"google.golang.org/protobuf/proto"
)

// TestArrivalFrameRoundTrip: a request frame with flag bit 1 carries the
// previous arms, no rewards and the arrivals, byte for byte as specified.
func TestArrivalFrameRoundTrip(t *testing.T) {
	arr := []Arrival{{Index: 0, Round: 1, Arm: 2, Reward: -0.5}, {Index: 2, Round: 1 << 40, Arm: 0, Reward: math.Inf(1)}}
	buf := appendStepRequestArrivals([]byte("stale"), 9, []int32{1, 0, 2}, arr, true)
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
	p, err := readFrame(bytes.NewReader(buf), nil, reqFrameLimitDelayed(3, 2))
	if err != nil {
		t.Fatal(err)
	}
	var f stepFrame
	if err := decodeStepRequest(p[4:], &f, 3, 2); err != nil {
		t.Fatal(err)
	}
	if !f.delayed || !f.wantDiag || f.round != 9 || !slices.Equal(f.arms, []int32{1, 0, 2}) || len(f.rewards) != 0 || !slices.Equal(f.arrivals, arr) {
		t.Fatalf("decoded %+v", f)
	}
	// One arrival more than pending: refused by its count, before
	// anything is allocated for the arrivals.
	var g stepFrame
	err = decodeStepRequest(p[4:], &g, 3, 1)
	if err == nil || !strings.Contains(err.Error(), "2 arrivals, but only 1 rewards are pending") || cap(g.arrivals) != 0 {
		t.Fatalf("2 arrivals with 1 pending: %v (allocated %d)", err, cap(g.arrivals))
	}
	// A count announcing more arrivals than the frame holds.
	bad := slices.Clone(p[4:])
	le.PutUint32(bad[8+1+4+12:], 1<<31)
	if err := decodeStepRequest(bad, &g, 3, math.MaxInt32); err == nil || cap(g.arrivals) != 0 {
		t.Fatalf("huge count: %v (allocated %d)", err, cap(g.arrivals))
	}
	// Without the bit the frame is protocol 1's.
	if old := appendStepRequest(nil, 9, []int32{1}, []float64{0.5}, false); old[4+8] != 0 || len(old) != 4+13+12 {
		t.Fatalf("immediate frame changed: %x", old)
	}
}

// TestImmediateOpenUnchanged: under immediate feedback an OpenRequest
// encodes exactly as in protocol 1: no feedback field on the wire.
func TestImmediateOpenUnchanged(t *testing.T) {
	req := &OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Seed: 3, Family: Gaussian, NoiseSD: 1, NoiseKnown: true, InitPulls: 1}
	m, err := toPBOpen(req)
	if err != nil {
		t.Fatal(err)
	}
	if m.Feedback != nil {
		t.Fatalf("immediate feedback sends %v", m.Feedback)
	}
	old := &pb.OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Seed: 3, Family: "gaussian", NoiseSd: 1, NoiseKnown: true, InitPulls: 1, Params: map[string]*pb.Value{}}
	a, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(old)
	if !bytes.Equal(a, b) {
		t.Fatal("an immediate OpenRequest encodes differently from protocol 1's")
	}
	req.Feedback = Feedback{Kind: Geometric, Mean: 2.5}
	m, _ = toPBOpen(req)
	if got := fromPBOpen(m).Feedback; got != req.Feedback {
		t.Fatalf("feedback round trip: %+v", got)
	}
}

// observer records every call in order.
type observer struct {
	mu    *sync.Mutex
	idx   uint64
	calls *[]string
}

func (o *observer) Select(t int) int {
	o.mu.Lock()
	*o.calls = append(*o.calls, fmt.Sprintf("r%d select %d", o.idx, t))
	o.mu.Unlock()
	return 1
}

func (o *observer) Observe(t, arm int, reward float64) {
	o.mu.Lock()
	*o.calls = append(*o.calls, fmt.Sprintf("r%d observe %d %d %v", o.idx, t, arm, reward))
	o.mu.Unlock()
}

// TestObserveOnArrival: a per-replication policy is told of each reward
// when it arrives, in pulled-round order, before Select of the round; and
// the SDK refuses arrivals that break the protocol's rules.
func TestObserveOnArrival(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	c, err := newCore(Plugin{Name: "obs", Version: "0", New: func(s Session, r Replica) (Policy, error) {
		if s.Feedback.Delayed() && s.Feedback != (Feedback{Kind: Delay, Delay: 1}) {
			return nil, fmt.Errorf("Session.Feedback %+v", s.Feedback)
		}
		return &observer{mu: &mu, idx: r.Index, calls: &calls}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	open := func() uint64 {
		id, err := c.open(&OpenRequest{Arms: 2, Horizon: 5, Replications: []uint64{10, 11}, Family: Gaussian, NoiseSD: 1, InitPulls: 1,
			Feedback: Feedback{Kind: Delay, Delay: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := open()
	steps := []struct {
		prev []int32
		arr  []Arrival
	}{
		{nil, nil},
		{[]int32{0, 0}, nil},
		{[]int32{1, 1}, []Arrival{{0, 1, 0, 0.1}, {1, 1, 0, 0.2}}},
		{[]int32{1, 1}, []Arrival{{1, 2, 1, 0.4}}},
	}
	for k, s := range steps {
		if _, err := c.step(id, k+1, s.prev, nil, s.arr, false); err != nil {
			t.Fatalf("round %d: %v", k+1, err)
		}
	}
	want := []string{
		"r10 observe 1 0 0.1", "r10 select 3", "r11 observe 1 0 0.2", "r11 select 3",
		"r10 select 4", "r11 observe 2 1 0.4", "r11 select 4",
	}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls\n%q\nwant\n%q", calls, want)
	}

	for _, c2 := range []struct {
		name    string
		round   int
		prev    []int32
		rewards []float64
		arr     []Arrival
		err     string
	}{
		{"rewards under delay", 2, []int32{0, 0}, []float64{1, 1}, nil, "want 2 arms and no rewards"},
		{"too many", 2, []int32{0, 0}, nil, []Arrival{{0, 1, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}}, "3 arrivals, but only 2 rewards are pending"},
		{"future round", 2, []int32{0, 0}, nil, []Arrival{{0, 2, 0, 0}}, "pulled in round 2, want 1..1"},
		{"bad index", 2, []int32{0, 0}, nil, []Arrival{{2, 1, 0, 0}}, "index 2, want 0..1"},
		{"bad arm", 2, []int32{0, 0}, nil, []Arrival{{1, 1, 5, 0}}, "replication 11: arm 5 out of range"},
		{"out of order", 2, []int32{0, 0}, nil, []Arrival{{1, 1, 0, 0}, {0, 1, 0, 0}}, "must be ordered by index, then round"},
	} {
		id := open()
		if _, err := c.step(id, 1, nil, nil, nil, false); err != nil {
			t.Fatal(err)
		}
		_, err := c.step(id, c2.round, c2.prev, c2.rewards, c2.arr, false)
		if err == nil || !strings.Contains(err.Error(), c2.err) {
			t.Errorf("%s: %v, want %q", c2.name, err, c2.err)
		}
	}
	// Arrivals in an immediate session are refused.
	imm, err := c.open(&OpenRequest{Arms: 2, Horizon: 5, Replications: []uint64{1}, Family: Gaussian, NoiseSD: 1, InitPulls: 1})
	if err != nil {
		t.Fatal(err)
	} else {
		c.step(imm, 1, nil, nil, nil, false)
		if _, err := c.step(imm, 2, []int32{0}, []float64{1}, []Arrival{{0, 1, 0, 1}}, false); err == nil || !strings.Contains(err.Error(), "under immediate feedback") {
			t.Errorf("arrivals under immediate feedback: %v", err)
		}
	}
	// Unknown or malformed modes are refused at open.
	for _, fb := range []Feedback{{Kind: "lag"}, {Kind: Delay, Delay: -1}, {Kind: Batch}, {Kind: Geometric, Mean: math.NaN()}} {
		if _, err := c.open(&OpenRequest{Arms: 2, Horizon: 5, Replications: []uint64{1}, InitPulls: 1, Feedback: fb}); err == nil {
			t.Errorf("open with feedback %+v accepted", fb)
		}
	}
}

// TestArrivalsOverEveryTransport: arrivals reach a batch policy intact on
// the step socket, the Steps stream and unary Step, and the policy sees no
// rewards of the previous round.
func TestArrivalsOverEveryTransport(t *testing.T) {
	for name, opts := range map[string]LaunchOptions{"socket": {}, "stream": {NoSocket: true}, "unary": {NoStream: true}} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got [][]Arrival
			var fb Feedback
			p := Plugin{Name: "fn", Version: "0.0.1", NewBatch: func(s Session, _ []Replica) (BatchPolicy, error) {
				fb = s.Feedback
				return stepFunc(func(st *BatchStep) error {
					if len(st.PrevRewards) != 0 {
						return fmt.Errorf("round %d: prev rewards %v", st.Round, st.PrevRewards)
					}
					got = append(got, slices.Clone(st.Arrivals))
					return nil
				}), nil
			}}
			rc, err := ServeInProcess(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Attach(rc, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			want := Feedback{Kind: Batch, Batch: 2}
			sess, err := c.Open(ctx, &OpenRequest{Arms: 3, Horizon: 4, Replications: []uint64{5, 6}, Family: Gaussian, NoiseSD: 1, InitPulls: 1, Feedback: want})
			if err != nil {
				t.Fatal(err)
			}
			rounds := [][]Arrival{nil, nil, {{0, 1, 0, 0.5}, {0, 2, 1, -1}, {1, 1, 0, 2}, {1, 2, 1, 3}}, nil}
			for k, arr := range rounds {
				var prev []int32
				if k > 0 {
					prev = []int32{int32(k - 1), int32(k - 1)}
				}
				if _, err := sess.StepArrivals(ctx, k+1, prev, arr, false); err != nil {
					t.Fatalf("round %d: %v", k+1, err)
				}
			}
			if err := sess.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if fb != want {
				t.Errorf("Session.Feedback %+v, want %+v", fb, want)
			}
			for k := range rounds {
				if len(got[k])+len(rounds[k]) > 0 && !slices.Equal(got[k], rounds[k]) {
					t.Errorf("round %d: arrivals %v, want %v", k+1, got[k], rounds[k])
				}
			}
		})
	}
}
