package sandbox_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/testbin"
)

// BenchmarkStart measures what the sandbox costs a plugin's start: the
// real ts plugin launched over go-plugin, described and closed, directly
// (no launcher, as before the sandbox), through the launcher unconfined
// (off) and confined (strict, and Landlock with seccomp only). Besides
// ns/op it reports the median start in ms over the iterations (run with
// -benchtime=50x for the median of 50 starts). The launcher here is this
// test binary; bench's own, a larger binary, takes about 2 ms more to
// start (see docs/performance.md).
//
//	go test -run '^$' -bench Start -benchtime=50x ./internal/sandbox/
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	if err := testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-ts", Name: "bench-plugin-ts"}); err != nil {
		b.Fatal(err)
	}
	ts := filepath.Join(dir, "bench-plugin-ts")
	strict, err := sandbox.Config{Level: sandbox.Strict}.Plan()
	if err != nil {
		b.Skipf("no strict sandbox here: %v", err)
	}
	off, _ := sandbox.Config{Level: sandbox.Off}.Plan()
	noNS := strict
	noNS.Layers = sandbox.Landlock | sandbox.Seccomp
	for _, c := range []struct {
		name string
		plan *sandbox.Plan
	}{{"direct", nil}, {"off", &off}, {"strict", &strict}, {"landlock+seccomp", &noNS}} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				cl, err := launch.Launch(ts, launch.Options{Sandbox: c.plan, StartTimeout: time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := cl.Describe(context.Background()); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
				cl.Close()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median/start")
		})
	}
}
