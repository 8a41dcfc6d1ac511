package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/testbin"
	linucbplugin "github.com/regretbench/regretbench/plugins/linucb"
)

// letterLinUCB is the contextual speed goal's run: LinUCB (Go) on letter
// (d = 16, K = 26), 100 replications x 20,000 rounds.
const letterLinUCB = `
name: letter_linucb
context: {dataset: letter}
horizon: 20000
runs: 100
seed: 107
policies:
  - {plugin: linucb, label: LinUCB, params: {intercept: false}}
`

// BenchmarkContextualLinUCB plays the whole letterLinUCB run, as bench run
// plays it (the engine's default sessions: two of 50 replications, at
// once), two ways:
//
//   - inprocess: the linucb plugin value served in this process with no
//     transport (client.NewLocal): the host's work (contexts, rewards,
//     metrics), the SDK's batch and the policy, without a plugin
//     boundary. It is the baseline the plugin's cost is judged against.
//   - plugin: the real bench-plugin-linucb executable, launched as bench
//     launches it but without a sandbox, its rounds on the step socket.
//
// Each reports its wall time (ns/rep-round) and its CPU time, this
// process's and the plugin process's (cpu-ns/rep-round; the system time
// alone, sys-ns/rep-round), per replication-round, and the run's CPU
// seconds (cpu-s/run). One iteration
// is one run (7-13 s of CPU on a 2-core VM):
//
//	go test ./host/engine -run x -bench ContextualLinUCB -benchtime 1x -count 5 | tee new.txt
//	benchstat -col /mode new.txt
func BenchmarkContextualLinUCB(b *testing.B) {
	sc, err := scenario.Parse("letter_linucb.yaml", []byte(letterLinUCB))
	if err != nil {
		b.Fatal(err)
	}
	inprocess := func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		c, err := client.NewLocal(linucbplugin.Plugin)
		if err != nil {
			return nil, err
		}
		d, err := c.Describe(ctx)
		if err != nil {
			return nil, err
		}
		return &engine.Plugin{Conn: c, Desc: d}, nil
	}
	executable := executableLauncher(linucbBinary(b), launch.Options{})
	for _, m := range []struct {
		name   string
		launch engine.Launcher
	}{{"mode=inprocess", inprocess}, {"mode=plugin", executable}} {
		b.Run(m.name, func(b *testing.B) {
			if m.name == "mode=plugin" {
				linucbBinary(b) // built before the clock starts
			}
			var cpu, sys time.Duration
			b.ResetTimer()
			for range b.N {
				c0, s0 := cpuTime(b)
				f, err := engine.Run(context.Background(), sc, engine.Options{Launch: m.launch})
				if err != nil {
					b.Fatal(err)
				}
				if st := f.Policies[0].Status; st != results.StatusOK {
					b.Fatalf("linucb: status %q: %s", st, f.Policies[0].Error)
				}
				// Run has closed the plugin, and the child's CPU time is
				// counted once it is reaped.
				c1, s1 := cpuTime(b)
				cpu, sys = cpu+c1-c0, sys+s1-s0
			}
			rr := float64(b.N) * float64(sc.Runs) * float64(sc.Horizon)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rr, "ns/rep-round")
			b.ReportMetric(float64(cpu.Nanoseconds())/rr, "cpu-ns/rep-round")
			b.ReportMetric(float64(sys.Nanoseconds())/rr, "sys-ns/rep-round")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
			b.ReportMetric(0, "ns/op") // the per-rep-round figures replace it
		})
	}
}

// cpuTime is the CPU time (user and system) and the system time alone of
// this process and of its reaped children.
func cpuTime(b *testing.B) (cpu, sys time.Duration) {
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		sys += time.Duration(ru.Stime.Nano())
	}
	return cpu, sys
}

// linucbBinary builds bench-plugin-linucb once per benchmark process.
func linucbBinary(b *testing.B) string {
	buildOnce.Do(func() { buildDir, buildErr = os.MkdirTemp("", "regretbench-bench") })
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	out := filepath.Join(buildDir, "bench-plugin-linucb")
	if _, err := os.Stat(out); err != nil {
		m := testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-linucb", Name: "bench-plugin-linucb"}
		if err := testbin.Build(buildDir, testbin.Options{}, m); err != nil {
			b.Fatal(err)
		}
	}
	return out
}
