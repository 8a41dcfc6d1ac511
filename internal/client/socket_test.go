package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

// stepFunc is a sdk.BatchPolicy that runs a function each round.
type stepFunc func(st *sdk.BatchStep) error

func (f stepFunc) Step(st *sdk.BatchStep) error { return f(st) }

// attachSocket serves a plugin whose batch policy is step in process and
// opens one session of two replications on it.
func attachSocket(t *testing.T, opts StartOptions, step stepFunc) (*Client, *clientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p := sdk.Plugin{Name: "fn", Version: "0.0.1", NewBatch: func(sdk.Session, []sdk.Replica) (sdk.BatchPolicy, error) { return step, nil }}
	rc, err := ServeInProcess(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Attach(rc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := c.Open(ctx, &OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c, s.(*clientSession)
}

func TestStepSocketOffered(t *testing.T) {
	for _, c := range []struct {
		name string
		opts StartOptions
		want bool
	}{{"default", StartOptions{}, true}, {"NoSocket", StartOptions{NoSocket: true}, false}, {"NoStream", StartOptions{NoStream: true}, false}} {
		t.Run(c.name, func(t *testing.T) {
			_, s := attachSocket(t, c.opts, func(*sdk.BatchStep) error { return nil })
			if got := s.sock != nil; got != c.want {
				t.Fatalf("step socket in use: %v, want %v", got, c.want)
			}
		})
	}
}

// TestStepSocketErrors: a policy's error and a bad request come back over
// the socket as the plugin's error for that round, as over gRPC.
func TestStepSocketErrors(t *testing.T) {
	_, s := attachSocket(t, StartOptions{}, func(st *sdk.BatchStep) error {
		if st.Round == 4 {
			return errors.New("the policy gave up")
		}
		return nil
	})
	ctx := context.Background()
	prevA, prevR := []int32{0, 1}, []float64{0.5, 0.5}
	if _, err := s.Step(ctx, &Step{Round: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Step(ctx, &Step{Round: 3, PrevArms: prevA, PrevRewards: prevR})
	var pe *PluginError
	if !errors.As(err, &pe) || pe.Op != "step round 3" || !strings.Contains(err.Error(), "round 3 requested after round 1") {
		t.Fatalf("skipping a round: %v", err)
	}
	for r := 2; r <= 3; r++ {
		if _, err := s.Step(ctx, &Step{Round: r, PrevArms: prevA, PrevRewards: prevR}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = s.Step(ctx, &Step{Round: 4, PrevArms: prevA, PrevRewards: prevR})
	if !errors.As(err, &pe) || pe.Op != "step round 4" || !strings.Contains(err.Error(), "the policy gave up") {
		t.Fatalf("failing policy: %v", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStepSocketCancel: cancelling a round that the plugin never answers
// returns the cancellation, instead of waiting on the socket for ever.
func TestStepSocketCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	_, s := attachSocket(t, StartOptions{}, func(st *sdk.BatchStep) error {
		if st.Round == 2 {
			close(started)
			<-release
		}
		return nil
	})
	if _, err := s.Step(context.Background(), &Step{Round: 1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Step(ctx, &Step{Round: 2, PrevArms: []int32{0, 1}, PrevRewards: []float64{0, 0}})
		done <- err
	}()
	<-started // the plugin has the round and will not answer it
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Step did not return after its context was cancelled")
	}
}
