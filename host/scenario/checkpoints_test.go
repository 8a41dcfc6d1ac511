package scenario

import (
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
