package sdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/sdk"
)

// diagBatch is a BatchPolicy that runs a function each round.
type diagBatch func(st *sdk.BatchStep)

func (f diagBatch) Step(st *sdk.BatchStep) error { f(st); return nil }

// TestPolicyDiagnosticsChecked: the SDK checks a BatchPolicy's
// diagnostics against the Plugin's declaration, and names the Plugin
// field, instead of sending them (or panicking on them), whichever way
// the host plays the round. (The host's checks of a plugin not built on
// the SDK are in internal/client.)
func TestPolicyDiagnosticsChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		diags []string
		want  bool
		step  func(st *sdk.BatchStep)
		err   string
	}{
		{"unasked", []string{"a"}, false, func(st *sdk.BatchStep) { st.Diagnostics = [][]float64{{1, 2}} }, "the policy returned 1 diagnostics where none were asked for"},
		{"none declared", nil, true, func(st *sdk.BatchStep) { st.Diagnostics = [][]float64{{1, 2}} }, "the policy returned 1 diagnostics, the plugin declares 0 (Plugin.Diagnostics)"},
		{"fewer", []string{"a", "b"}, true, func(st *sdk.BatchStep) { st.Diagnostics = st.Diagnostics[:1] }, "the policy returned 1 diagnostics, the plugin declares 2"},
		{"short row", []string{"a", "b"}, true, func(st *sdk.BatchStep) { st.Diagnostics[1] = st.Diagnostics[1][:1] }, `the policy returned 1 values of diagnostic "b" for 2 replications`},
	} {
		for _, tr := range []struct {
			name string
			opts client.StartOptions
		}{{"local", client.StartOptions{}}, {"socket", client.StartOptions{}}, {"stream", client.StartOptions{NoSocket: true}}, {"unary", client.StartOptions{NoStream: true}}} {
			t.Run(c.name+"/"+tr.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p := sdk.Plugin{Name: "diag", Version: "0", Diagnostics: c.diags, NewBatch: func(sdk.Session, []sdk.Replica) (sdk.BatchPolicy, error) {
					return diagBatch(func(st *sdk.BatchStep) {
						if st.Round == 2 {
							c.step(st)
						}
					}), nil
				}}
				var conn client.Conn
				if tr.name == "local" {
					l, err := client.NewLocal(p)
					if err != nil {
						t.Fatal(err)
					}
					conn = l
				} else {
					rc, err := client.ServeInProcess(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					cl, err := client.Attach(rc, tr.opts)
					if err != nil {
						t.Fatal(err)
					}
					defer cl.Close()
					conn = cl
				}
				s, err := conn.Open(ctx, &client.OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Step(ctx, &client.Step{Round: 1}); err != nil {
					t.Fatal(err)
				}
				_, err = s.Step(ctx, &client.Step{Round: 2, PrevArms: []int32{0, 1}, PrevRewards: []float64{0, 0}, WantDiag: c.want})
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Step: %v, want an error containing %q", err, c.err)
				}
			})
		}
	}
}
