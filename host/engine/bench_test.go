package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/procs"
	"github.com/regretbench/regretbench/internal/testbin"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// TestMain runs with a spare P, as bench does (sdk.SpareP), and removes
// the plugins the benchmarks built.
func TestMain(m *testing.M) {
	procs.SpareP()
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// pluginBinary builds a shipped plugin once per benchmark process.
func pluginBinary(b *testing.B, name string) string {
	buildOnce.Do(func() { buildDir, buildErr = os.MkdirTemp("", "regretbench-bench") })
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	out := filepath.Join(buildDir, "bench-plugin-"+name)
	if _, err := os.Stat(out); err != nil {
		m := testbin.Main{Pkg: "github.com/regretbench/regretbench/plugins/" + name, Name: "bench-plugin-" + name}
		if err := testbin.Build(buildDir, testbin.Options{}, m); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// BenchmarkEngine measures the cost of one replication-round of a policy
// at K=10 over the 1000 replications x 20000 rounds: in process
// through the SDK's runner (local-ns/rep-round), through a real plugin
// process over go-plugin as bench runs it (plugin-ns/rep-round, rounds on
// the step socket), and the same with rounds on the gRPC Steps stream
// (stream-ns/rep-round). ratio is plugin over local: the transport's
// overhead. One iteration plays all three; -benchtime 1x is enough.
func BenchmarkEngine(b *testing.B) {
	const runs, horizon = 1000, 20000
	for _, pol := range []string{"ts", "klucb", "remax"} {
		b.Run(pol+"/K=10", func(b *testing.B) {
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
			path := pluginBinary(b, pol)
			launcher := func(opts launch.Options) engine.Launcher { return executableLauncher(path, opts) }
			modes := []struct {
				name   string
				launch engine.Launcher
			}{
				{"local", local},
				{"plugin", launcher(launch.Options{})},
				{"stream", launcher(launch.Options{NoSocket: true})},
			}
			elapsed := make([]time.Duration, len(modes))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for m, mode := range modes {
					start := time.Now()
					if _, err := engine.Run(context.Background(), sc, engine.Options{Launch: mode.launch}); err != nil {
						b.Fatal(err)
					}
					elapsed[m] += time.Since(start)
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*runs*horizon) }
			for m, mode := range modes {
				b.ReportMetric(per(elapsed[m]), mode.name+"-ns/rep-round")
			}
			b.ReportMetric(per(elapsed[1])/per(elapsed[0]), "ratio")
			b.ReportMetric(0, "ns/op") // one iteration plays all modes: drop its ns/op
		})
	}
}

// executableLauncher launches the plugin executable at path with opts
// for every policy, unsandboxed, as the benchmarks that measure the
// plugin boundary need it.
func executableLauncher(path string, opts launch.Options) engine.Launcher {
	return func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		c, err := launch.Launch(path, opts)
		if err != nil {
			return nil, err
		}
		d, err := c.Describe(ctx)
		if err != nil {
			c.Close()
			return nil, err
		}
		return &engine.Plugin{Conn: c, Desc: d}, nil
	}
}
