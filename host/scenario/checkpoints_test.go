package scenario

import (
	"fmt"
	"slices"
	"testing"
)

// TestAddCheckpoints: rounds within the horizon become checkpoints, in
// order and once; rounds outside it are left out.
func TestAddCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		at   []int
		want []int
	}{
		{nil, []int{1, 5, 10, 50, 100, 200}},
		{[]int{20}, []int{1, 5, 10, 20, 50, 100, 200}},
		{[]int{150, 20, 20, 10}, []int{1, 5, 10, 20, 50, 100, 150, 200}},
		{[]int{0, 300, -1}, []int{1, 5, 10, 50, 100, 200}},
	} {
		s := &Scenario{Horizon: 200, Checkpoints: []int{1, 5, 10, 50, 100, 200}}
		s.AddCheckpoints(tc.at...)
		if !slices.Equal(s.Checkpoints, tc.want) {
			t.Errorf("AddCheckpoints(%v): %v, want %v", tc.at, s.Checkpoints, tc.want)
		}
	}
}

// TestBreakpointCheckpoints: a piecewise-stationary scenario without
// checkpoints in its file records the metrics at each breakpoint and the
// round after it, besides the log-spaced rounds; --horizon recomputes
// them; checkpoints written in the file are kept as written; a colour set
// on a policy parses.
func TestBreakpointCheckpoints(t *testing.T) {
	const src = `environment:
  family: bernoulli
  means: [0.5, 0.4, 0.1]
  changes: [{at: 3000, means: [0.5, 0.4, 0.9]}, {at: 5000, means: [0.5, 0.4, 0.1]}]
horizon: 10000
runs: 2
%spolicies: [{plugin: ucb1, color: "#0072b2"}]
`
	s, err := Parse("x.yaml", []byte(fmt.Sprintf(src, "")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{3000, 3001, 5000, 5001, 10000} {
		if !slices.Contains(s.Checkpoints, c) {
			t.Errorf("checkpoints %v lack %d", s.Checkpoints, c)
		}
	}
	for _, c := range DefaultCheckpoints(10000) {
		if !slices.Contains(s.Checkpoints, c) {
			t.Errorf("checkpoints %v lack the log-spaced %d", s.Checkpoints, c)
		}
	}
	if !slices.IsSorted(s.Checkpoints) || len(s.Checkpoints) != len(DefaultCheckpoints(10000))+4 {
		t.Errorf("checkpoints %v: want sorted, the default ones and 4 more", s.Checkpoints)
	}
	if s.Policies[0].Color != "#0072b2" {
		t.Errorf("color %q", s.Policies[0].Color)
	}
	if err := s.SetHorizon(4000); err != nil {
		t.Fatal(err)
	}
	if want := BreakpointCheckpoints(4000, []Change{{At: 3000}}); !slices.Equal(s.Checkpoints, want) || !slices.Contains(want, 3001) || slices.Contains(want, 5000) {
		t.Errorf("at horizon 4000: %v, want %v (3000 and 3001, not 5000)", s.Checkpoints, want)
	}
	// A breakpoint at T adds T only.
	if got := BreakpointCheckpoints(100, []Change{{At: 100}}); !slices.Equal(got, DefaultCheckpoints(100)) {
		t.Errorf("breakpoint at T: %v", got)
	}
	s, err = Parse("x.yaml", []byte(fmt.Sprintf(src, "checkpoints: [100, 1000]\n")))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{100, 1000, 10000}; !slices.Equal(s.Checkpoints, want) {
		t.Errorf("file's checkpoints: %v, want %v", s.Checkpoints, want)
	}
}
