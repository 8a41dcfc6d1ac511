package simtest

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/scenarios"
)

// shippedEnv is the part of a shipped scenario file that Shipped reads. It
// is decoded here from the embedded files rather than through host/scenario
// so that no plugin package links host code (TestNoHostDeps).
type shippedEnv struct {
	Environment struct {
		Means   []float64 `yaml:"means"`
		NoiseSD float64   `yaml:"noise_sd"`
		Scale   float64   `yaml:"scale"`
	} `yaml:"environment"`
}

// Shipped returns the true means (means * scale) and the noise sd of a
// shipped scenario (two_arm, ten_arm, movielens, obd, ...), so that
// benchmarks use the paper's instances from the one copy that bench runs
// instead of copies of the tables.
func Shipped(tb testing.TB, name string) (means []float64, sd float64) {
	tb.Helper()
	file := strings.TrimSuffix(name, ".yaml") + ".yaml"
	data, err := fs.ReadFile(scenarios.FS, file)
	if err != nil {
		tb.Fatalf("simtest: shipped scenario %q: %v", name, err)
	}
	var sc shippedEnv
	if err := yaml.Unmarshal(data, &sc); err != nil {
		tb.Fatalf("simtest: shipped scenario %s: %v", file, err)
	}
	env := sc.Environment
	if len(env.Means) < 2 {
		tb.Fatalf("simtest: shipped scenario %s: environment.means has %d arms, want at least 2", file, len(env.Means))
	}
	means = slices.Clone(env.Means)
	if env.Scale != 0 {
		for i := range means {
			means[i] *= env.Scale
		}
	}
	return means, env.NoiseSD
}
