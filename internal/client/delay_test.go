package client

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// TestArrivalsOverEveryTransport: arrivals reach a batch policy intact on
// the step socket, the Steps stream and unary Step, and the policy sees no
// rewards of the previous round.
func TestArrivalsOverEveryTransport(t *testing.T) {
	for name, opts := range map[string]*StartOptions{"local": nil, "socket": {}, "stream": {NoSocket: true}, "unary": {NoStream: true}} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got [][]Arrival
			var fb sdk.Feedback
			p := sdk.Plugin{Name: "fn", Version: "0.0.1", NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
				fb = s.Feedback
				return stepFunc(func(st *sdk.BatchStep) error {
					if len(st.PrevRewards) != 0 {
						return fmt.Errorf("round %d: prev rewards %v", st.Round, st.PrevRewards)
					}
					got = append(got, arrivalsOf(st.Arrivals))
					return nil
				}), nil
			}}
			var c Conn
			if opts == nil {
				l, err := NewLocal(p)
				if err != nil {
					t.Fatal(err)
				}
				c = l
			} else {
				rc, err := ServeInProcess(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				cl, err := Attach(rc, *opts)
				if err != nil {
					t.Fatal(err)
				}
				c = cl
			}
			defer c.Close()
			want := sdk.Feedback{Kind: sdk.Batch, Batch: 2}
			sess, err := c.Open(ctx, &OpenRequest{Arms: 3, Horizon: 4, Replications: []uint64{5, 6}, Family: sdk.Gaussian, NoiseSD: 1, InitPulls: 1, Feedback: want})
			if err != nil {
				t.Fatal(err)
			}
			rounds := [][]Arrival{nil, nil, {{Index: 0, Round: 1, Arm: 0, Reward: 0.5}, {Index: 0, Round: 2, Arm: 1, Reward: -1}, {Index: 1, Round: 1, Arm: 0, Reward: 2}, {Index: 1, Round: 2, Arm: 1, Reward: 3}}, nil}
			for k, arr := range rounds {
				var prev []int32
				var stale []float64 // rewards of another mode: no transport passes them on
				if k > 0 {
					prev = []int32{int32(k - 1), int32(k - 1)}
					stale = []float64{9, 9}
				}
				if _, err := sess.Step(ctx, &Step{Round: k + 1, PrevArms: prev, PrevRewards: stale, Arrivals: arr}); err != nil {
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

// arrivalsOf copies a policy's arrivals into the host's type.
func arrivalsOf(arr []sdk.Arrival) []Arrival {
	var out []Arrival
	for _, a := range arr {
		out = append(out, Arrival(a))
	}
	return out
}
