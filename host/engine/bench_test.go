package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/sdk"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// pluginBinary builds a shipped plugin once per benchmark process.
func pluginBinary(b *testing.B, name string) string {
	buildOnce.Do(func() { buildDir, buildErr = os.MkdirTemp("", "regretbench-bench") })
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	out := filepath.Join(buildDir, "bench-plugin-"+name)
	if _, err := os.Stat(out); err != nil {
		cmd := exec.Command("go", "build", "-o", out, "github.com/regretbench/regretbench/plugins/"+name)
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", name, err, msg)
		}
	}
	return out
}

// BenchmarkEngine measures the cost of one replication-round of a policy
// at K=10 with 1000 replications: in process through the SDK's runner
// (local), and through a real plugin process over go-plugin (plugin). The
// ratio of the two is the transport overhead.
func BenchmarkEngine(b *testing.B) {
	const runs, horizon = 1000, 500
	for _, pol := range []string{"ts", "klucb", "remax"} {
		for _, mode := range []string{"local", "plugin"} {
			b.Run(fmt.Sprintf("%s/K=10/%s", pol, mode), func(b *testing.B) {
				sc, err := scenario.Parse("bench.yaml", []byte(fmt.Sprintf(`
environment: {means: [0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01], noise_sd: 0.05}
horizon: %d
runs: %d
seed: 1
policies: [{plugin: %s}]
`, horizon, runs, pol)))
				if err != nil {
					b.Fatal(err)
				}
				launch := local
				if mode == "plugin" {
					path := pluginBinary(b, pol)
					launch = func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
						c, err := sdk.Launch(path, sdk.LaunchOptions{})
						if err != nil {
							return nil, err
						}
						d, err := c.Describe(ctx)
						if err != nil {
							return nil, err
						}
						return &engine.Plugin{Conn: c, Desc: d}, nil
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*runs*horizon), "ns/rep-round")
			})
		}
	}
}
