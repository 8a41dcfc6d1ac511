package sdk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// TestOpenErrorSaysOpenOnce: a refused Open reads "plugin X: open: WHY",
// not "open: open: WHY" (the plugin side and the host side both named the
// operation).
func TestOpenErrorSaysOpenOnce(t *testing.T) {
	picky := toy
	picky.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
		if s.Params.Float("eps") > 0.5 {
			return nil, errors.New("picky: eps must be <= 0.5")
		}
		return toy.New(s, r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc, err := client.ServeInProcess(ctx, picky)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Attach(rc, client.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name string
		req  client.OpenRequest
		want string
	}{
		{"policy refuses", client.OpenRequest{Arms: 2, Horizon: 5, Replications: []uint64{0}, InitPulls: 1, Params: map[string]any{"eps": 0.9}},
			"picky: eps must be <= 0.5"},
		{"unknown parameter", client.OpenRequest{Arms: 2, Horizon: 5, Replications: []uint64{0}, InitPulls: 1, Params: map[string]any{"epsilon": 0.1}},
			`"epsilon"`},
		{"bad shape", client.OpenRequest{Arms: 0, Horizon: 5, Replications: []uint64{0}, InitPulls: 1},
			"arms=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Open(ctx, &tc.req)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error lacks %q: %s", tc.want, msg)
			}
			if n := strings.Count(msg, "open"); n != 1 {
				t.Errorf("error says open %d times, want once: %s", n, msg)
			}
		})
	}
}
