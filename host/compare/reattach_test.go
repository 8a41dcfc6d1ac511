package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// comparable gives f's policies what Compute reads.
func comparable(f *results.File) *results.File {
	for _, p := range f.Policies {
		p.Checkpoints = []int{10}
		p.Params = map[string]any{}
		for _, m := range metric.Names {
			s, _ := p.Metric(m)
			*s = results.Series{Mean: []float64{1}, SE: []float64{0}}
			p.Final[m] = p.Final[metric.Regret]
		}
	}
	return f
}

// TestReattach: a merged file gets its shard's comparison recomputed from
// its own replications, none when the shard has none, and none, with the
// error, when the shard's section cannot be recomputed.
func TestReattach(t *testing.T) {
	// The shard saw replication 0 alone: B - A = 1 there, 4/3 over all.
	shardFile := comparable(file(pol("A", 1), pol("B", 2)))
	if _, err := Attach(shardFile, Spec{Policies: []string{"B"}, Baselines: []string{"A"}}, DefaultOptions); err != nil {
		t.Fatal(err)
	}
	broken := comparable(file(pol("A", 1), pol("B", 2)))
	broken.Comparison = []byte(`{"spec": {"policies": []}}`)
	for _, tc := range []struct {
		name      string
		from      *results.File
		wantDelta float64 // NaN: no section
		wantErr   string
	}{
		{"recomputed", shardFile, 4.0 / 3, ""},
		{"none", comparable(file(pol("A", 1), pol("B", 2))), math.NaN(), ""},
		{"dropped", broken, math.NaN(), "spec.policies is empty"},
	} {
		merged := comparable(file(pol("A", 1, 2, 3), pol("B", 2, 3, 5)))
		err := Reattach(merged, tc.from)
		if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
		}
		s, ferr := FromFile(merged)
		switch {
		case ferr != nil:
			t.Errorf("%s: the section left is unreadable: %v", tc.name, ferr)
		case math.IsNaN(tc.wantDelta) && s != nil:
			t.Errorf("%s: a comparison section is left: %s", tc.name, merged.Comparison)
		case !math.IsNaN(tc.wantDelta) && (s == nil || math.Abs(s.Policies[0].Diffs[0].Delta-tc.wantDelta) > 1e-12):
			t.Errorf("%s: section %s, want delta %v", tc.name, merged.Comparison, tc.wantDelta)
		}
	}
}
