package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/regretbench/regretbench/internal/procs"
	"github.com/regretbench/regretbench/internal/wire"
)

// writeDescription writes d as indented JSON, for a person: < > & as they
// are, not \u003c \u003e \u0026 (encoding/json's default, for JSON put
// inside HTML), so that a parameter's doc reads "must be > 0".
func writeDescription(w io.Writer, d *description) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// Serve runs p as a plugin process and never returns: it is all a plugin's
// main needs.
//
//	func main() { sdk.Serve(sdk.Plugin{Name: "ts", Version: "1.0.0", Params: ts.Params, New: ts.New}) }
//
// Run by bench, it speaks go-plugin's handshake on stdout and serves the
// policy protocol until the host kills it. It exits on its own when its
// parent process dies, so a crashed host leaves no orphans. Run by hand with
// the single argument "describe", it prints its Describe answer as JSON.
func Serve(p Plugin) {
	c, err := newCore(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(os.Args) == 2 && os.Args[1] == "describe" {
		if err := writeDescription(os.Stdout, c.describe()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	go watchParent(os.Getppid(), time.Second)
	procs.SpareP()
	if path := os.Getenv("REGRETBENCH_PLUGIN_CPUPROFILE"); path != "" {
		// Profiling a plugin under a real run: one file per process.
		if f, err := os.Create(fmt.Sprintf("%s.%s.%d", path, p.Name, os.Getpid())); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	// Once it has printed the handshake, go-plugin's Serve points
	// os.Stderr at a pipe into its stdio stream, copied to the host by a
	// goroutine: what a plugin writes there just before it exits dies with
	// the process (9 times in 10). Point os.Stderr back at the real
	// stderr, which bench reads to its end, at the host's first call:
	// Serve swaps it before it serves any.
	realStderr := os.Stderr
	var restore sync.Once
	back := func() { restore.Do(func() { os.Stderr = realStderr }) }
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.PluginSets(c, servedVersions),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return wire.NewGRPCServer(append(opts,
				grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
					back()
					return h(ctx, req)
				}),
				grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
					back()
					return h(srv, ss)
				})))
		},
		// The host reads our raw stderr into a ring buffer for its error
		// messages: keep it to warnings and errors, as JSON hclog parses.
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: p.Name, Level: hclog.Warn, JSONFormat: true, Output: os.Stderr,
		}),
	})
}

// watchParent exits the process when its parent changes, i.e. when the host
// died without killing us (SIGKILL, crash): go-plugin does not tie a gRPC
// plugin's life to its host's.
func watchParent(ppid int, every time.Duration) {
	for range time.Tick(every) {
		if os.Getppid() != ppid {
			fmt.Fprintf(os.Stderr, "regretbench plugin: host process %d is gone, exiting\n", ppid)
			os.Exit(3)
		}
	}
}
