// Command bench benchmarks multi-armed bandit policies, each a plugin
// executable spoken to over go-plugin, on shared scenarios.
//
// See the README for the manual; `bench --help` lists every subcommand.
// Install it, with the shipped plugins beside it, with
//
//	go install github.com/regretbench/regretbench/cmd/...@latest
package main

import (
	"context"
	"os"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/procs"
)

func main() {
	procs.SpareP() // see its doc: sessions wait in blocking reads
	ctx, stop := cli.SignalContext(context.Background())
	err := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	client.Cleanup()
	os.Exit(cli.ExitCode(err))
}
