//go:build linux

package main

// The probe as a plugin (host/cli's tests): one attempt per process, its
// report as the Open error.

import (
	"errors"
	"fmt"

	"github.com/regretbench/regretbench/sdk"
)

// servePlugin serves the plugin that makes attempt name when a session
// opens.
func servePlugin(name string) {
	str := func(name, doc string) sdk.Param {
		return sdk.Param{Name: name, Type: sdk.String, Default: "", Doc: doc}
	}
	sdk.Serve(sdk.Plugin{
		Name: "cheat-probe-" + name, Version: "0.0.1",
		Params: []sdk.Param{str("addr", "host:port or socket path to reach"), str("path", "file to read or write"),
			str("token", "what to send or write")},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			detail, err := tryNamed(name, paramInputs(s.Params))
			if err != nil {
				return nil, fmt.Errorf("escape-probe %s: failed: %v", name, err)
			}
			return nil, fmt.Errorf("escape-probe %s: ok: %s", name, detail)
		},
	})
}

// paramInputs are a plugin's inputs: addr is every address, path both
// the file it must not read and the one it must not write.
func paramInputs(p sdk.Params) *inputs {
	addr, path := p.String("addr"), p.String("path")
	in := &inputs{secret: path, outside: path, tcp: addr, udp: addr, unixStream: addr, unixDgram: addr,
		abstract: addr, token: p.String("token"), hostEnv: p.String("token"), scan: "--scenario\x00"}
	in.host, in.hostSeen = benchPid()
	return in
}

// tryNamed makes the attempt name.
func tryNamed(name string, in *inputs) (string, error) {
	for _, a := range attempts {
		if a.name == name {
			return a.try(in)
		}
	}
	return "", errors.New("unknown attempt")
}
