package client

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"

	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

// ServeInProcess serves p in the calling process over real gRPC (go-plugin's
// test mode) until ctx is cancelled, and returns the reattach configuration
// that Attach connects to. Tests and the conformance kit use it to exercise
// the wire path without building a binary.
func ServeInProcess(ctx context.Context, p sdk.Plugin) (*plugin.ReattachConfig, error) {
	srv, err := wire.InProcess(p)
	if err != nil {
		return nil, err
	}
	d, err := srv.Describe()
	if err != nil {
		return nil, err
	}
	ch := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		// Test mode sends no version list: serve the newest version the
		// plugin speaks only (go-plugin would fall back to the oldest).
		VersionedPlugins: wire.PluginSets(srv, []int{int(d.GetProtocolVersion())}),
		GRPCServer:       wire.NewGRPCServer,
		Logger:           hclog.NewNullLogger(),
		Test:             &plugin.ServeTestConfig{Context: ctx, ReattachConfigCh: ch, CloseCh: closed},
	})
	select {
	case rc := <-ch:
		return rc, nil
	case <-closed:
		return nil, fmt.Errorf("in-process plugin %s stopped before serving", p.Name)
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("in-process plugin %s did not start", p.Name)
	}
}
