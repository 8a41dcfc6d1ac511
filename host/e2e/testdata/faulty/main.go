// Command faulty is a deliberately broken regretbench plugin for the fault
// catalogue in host/e2e/fault_test.go. The test builds it once and links it
// into a plugin directory under several names, bench-plugin-faulty-MODE; a
// plugin receives no arguments, so the mode is read from os.Args[0].
//
// Faults that happen in a round happen at round faultRound, after the
// host-forced initial rounds of the test scenarios. Before failing, every
// mode writes a line starting "faulty MODE:" to the process's real stderr,
// so the test can check that bench quotes the plugin's last stderr lines.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

const faultRound = 5

// hostile is what the hostile-* modes put in every string they declare or
// send: a terminal retitle (OSC 0 ... BEL), a screen clear (CSI 2 J), a
// bidi override and a C1 control (the 8-bit CSI). bench must show each of
// them escaped, never raw.
const hostile = "\x1b]0;pwned\x07\x1b[2J\u202e\u009b"

// sayHostile writes two stderr lines holding hostile, the second with a
// carriage return and a byte of invalid UTF-8 as well: a quote of the
// plugin's stderr must keep the lines and escape the rest. (Only a
// plugin that exits is sure to have its last stderr lines quoted, which
// hostile-crash does.)
func sayHostile(when string) {
	say("%s: %s", when, hostile)
	say("%s again\r%s\xff", when, hostile)
}

// stderr is the real fd 2: go-plugin's Serve swaps os.Stderr for a pipe
// into its stdio stream, whose tail a dying process may never deliver.
var stderr = os.Stderr

// mode is the name's suffix; under another name (standing in for a shipped
// plugin) it is $FAULTY_MODE, and a plugin without a mode is well behaved.
var mode = modeOf(filepath.Base(os.Args[0]))

func modeOf(name string) string {
	if m, ok := strings.CutPrefix(name, "bench-plugin-faulty-"); ok {
		return m
	}
	return os.Getenv("FAULTY_MODE")
}

func say(format string, args ...any) {
	fmt.Fprintf(stderr, "faulty %s: %s\n", mode, fmt.Sprintf(format, args...))
}

func main() {
	switch mode {
	case "stdout-before":
		fmt.Println("hello from a chatty init()")
	case "exit-early":
		say("cannot load my model file, exiting")
		os.Exit(1)
	case "slow-start":
		say("warming up for a minute")
		time.Sleep(time.Minute)
	case "slow-ok":
		time.Sleep(300 * time.Millisecond)
	case "stop-self":
		// Not a plugin: TestStopSelf runs it as a plain program.
		os.Exit(checkStopSelf())
	case "bad-version":
		say("speaking protocol version 99")
		serveRaw(plugin.HandshakeConfig{ProtocolVersion: 99,
			MagicCookieKey: wire.Handshake.MagicCookieKey, MagicCookieValue: wire.Handshake.MagicCookieValue})
		return
	case "bad-cookie":
		say("expecting another host's cookie")
		serveRaw(plugin.HandshakeConfig{ProtocolVersion: client.ProtocolVersion,
			MagicCookieKey: wire.Handshake.MagicCookieKey, MagicCookieValue: "not-regretbench"})
		return
	case "complex", "int-default", "hostile-sdk":
		// sdk.Serve refuses these declarations, as it should: answer
		// Describe by hand, as a plugin in another language could.
		serveDescribe(rawDescribe[mode])
		return
	}
	var diags []string
	if mode == "many-diagnostics" {
		for i := range 20000 {
			diags = append(diags, fmt.Sprintf("d%d", i))
		}
	}
	if mode == "xml-names" {
		// Names a plugin may declare (valid UTF-8, no control) that XML
		// cannot hold as they are (U+FFFE) or that are markup; the values
		// stay zero.
		diags = []string{"gap\uFFFE</text>]]>&\"'", "a b", "a_b"}
	}
	p := sdk.Plugin{Name: "faulty-" + mode, Version: "0.0.1", Diagnostics: diags, NewBatch: newBatch}
	if strings.HasPrefix(mode, "hostile") {
		p.Version += hostile
		p.Params = []sdk.Param{{Name: "style", Type: sdk.String, Default: "plain" + hostile,
			Allowed: []any{"plain" + hostile, "fancy"}, Doc: "how to draw" + hostile}}
	}
	sdk.Serve(p)
}

// serveRaw serves go-plugin with a handshake other than the SDK's and no
// services: the host must reject it before asking for any.
func serveRaw(hc plugin.HandshakeConfig) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: hc,
		VersionedPlugins: map[int]plugin.PluginSet{
			int(hc.ProtocolVersion): {"policy": emptyPlugin{}},
		},
		GRPCServer: plugin.DefaultGRPCServer,
		Logger:     hclog.NewNullLogger(),
	})
}

type emptyPlugin struct{ plugin.NetRPCUnsupportedPlugin }

// rawDescribe are Describe answers, in protojson, that no SDK plugin can
// give: a parameter type the protocol does not know, and a default not of
// its parameter's type.
var rawDescribe = map[string]string{
	"complex": `{"name": "faulty-complex", "version": "0.0.1", "protocolVersion": 1,
		"params": [{"name": "z", "type": "complex", "default": {"float": 1}, "doc": "a complex number"}]}`,
	"int-default": `{"name": "faulty-int-default", "version": "0.0.1", "protocolVersion": 1,
		"params": [{"name": "n", "type": "int", "default": {"string": "three"}}]}`,
	// The SDK string, which no SDK plugin chooses, holds hostile too.
	"hostile-sdk": `{"name": "faulty-hostile-sdk", "version": "0.0.1` + hostileJSON + `", "protocolVersion": 1,
		"sdk": "regretbench-go/0.1.0` + hostileJSON + `",
		"params": [{"name": "style", "type": "string", "default": {"string": "plain` + hostileJSON + `"}, "doc": "how to draw` + hostileJSON + `"}]}`,
}

// hostileJSON is hostile as a JSON string's content.
const hostileJSON = `\u001b]0;pwned\u0007\u001b[2J\u202e\u009b`

// serveDescribe serves the policy service with only Describe, answering
// it with the protojson answer. It builds the messages from the protocol's
// descriptors, which importing the SDK registers.
func serveDescribe(answer string) {
	find := func(name string) protoreflect.MessageType {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(name))
		if err != nil {
			say("%v", err)
			os.Exit(1)
		}
		return mt
	}
	req, resp := find("regretbench.v1.DescribeRequest"), find("regretbench.v1.DescribeResponse")
	out := resp.New().Interface()
	if err := protojson.Unmarshal([]byte(answer), out); err != nil {
		say("%v", err)
		os.Exit(1)
	}
	say("describing myself with %s", answer)
	desc := &grpc.ServiceDesc{
		ServiceName: "regretbench.v1.Policy",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Describe",
			Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				if err := dec(req.New().Interface()); err != nil {
					return nil, err
				}
				return out, nil
			},
		}},
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{
			client.MinProtocolVersion: {"policy": rawPlugin{desc: desc}}, // a protocol 1 plugin in another language
		},
		GRPCServer: plugin.DefaultGRPCServer,
		Logger:     hclog.NewNullLogger(),
	})
}

// rawPlugin registers a hand-made service description.
type rawPlugin struct {
	emptyPlugin
	desc *grpc.ServiceDesc
}

func (p rawPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(p.desc, struct{}{})
	return nil
}

func (emptyPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error { return nil }
func (emptyPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("host side only")
}

// batch pulls arm (t + replication) mod K, a valid policy until its fault.
type batch struct {
	s    sdk.Session
	reps []sdk.Replica
	spy  *json.Encoder
}

func newBatch(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
	if mode == "hang-open" {
		say("hanging in Open")
		select {}
	}
	if mode == "hostile-open" {
		sayHostile("open")
		return nil, fmt.Errorf("faulty hostile-open: cannot open %s", hostile)
	}
	b := &batch{s: s, reps: reps}
	if mode == "helper" {
		// A helper process of its own, which must not outlive bench.
		helper := exec.Command("sleep", "600")
		if err := helper.Start(); err != nil {
			return nil, err
		}
		say("started helper process %d", helper.Process.Pid)
		os.WriteFile(os.Getenv("FAULTY_HELPER_PID"), []byte(strconv.Itoa(helper.Process.Pid)), 0o644)
	}
	if mode == "spy" {
		f, err := os.OpenFile(os.Getenv("FAULTY_SPY_FILE"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		b.spy = json.NewEncoder(f)
		idx := make([]uint64, len(reps))
		for i, r := range reps {
			idx[i] = r.Index
		}
		env := os.Environ()
		b.spy.Encode(map[string]any{"open": s, "replications": idx, "args": os.Args, "env": env})
	}
	return b, nil
}

func (b *batch) Step(st *sdk.BatchStep) error {
	t := st.Round
	if b.spy != nil {
		rec := map[string]any{"round": t, "prev_arms": st.PrevArms, "prev_rewards": st.PrevRewards, "diag": st.Diagnostics != nil}
		if b.s.Feedback.Delayed() {
			rec["arrivals"] = st.Arrivals
		}
		b.spy.Encode(rec)
	}
	for i := range st.Arms {
		st.Arms[i] = int32((t + i) % b.s.Arms)
	}
	if mode == "slow-steps" {
		if p := os.Getenv("FAULTY_PROGRESS"); p != "" && t%10 == 0 {
			os.WriteFile(p, []byte(strconv.Itoa(t)), 0o644)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if t == faultRound {
		return b.fault(st)
	}
	if mode == "stdout-flood" && t == faultRound+1 {
		// One 1 MiB line, on the raw fd 1 the handshake used and on the
		// os.Stdout go-plugin forwards.
		line := strings.Repeat("x", 1<<20) + "\n"
		os.NewFile(1, "stdout").WriteString(line)
		fmt.Print(line)
	}
	if mode == "stdout-after" && t == faultRound+1 {
		// Both the swapped os.Stdout and the raw fd 1 the handshake used.
		fmt.Println("faulty stdout-after: a debugging print")
		os.NewFile(1, "stdout").WriteString("faulty stdout-after: a raw write to fd 1\n")
	}
	return nil
}

// Close implements sdk.Closer.
func (b *batch) Close() error {
	switch mode {
	case "finisher":
		// Every round is played and the host is closing the session.
		if p := os.Getenv("FAULTY_DONE"); p != "" {
			os.WriteFile(p, []byte("done"), 0o644)
		}
	case "hang-close":
		say("hanging in Close")
		mark()
		select {}
	}
	return nil
}

func (b *batch) fault(st *sdk.BatchStep) error {
	switch mode {
	case "sigstop":
		say("stopping myself at round %d", st.Round)
		mark()
		stopSelf()
		// While bench runs nothing continues a stopped plugin (the
		// kernel sends SIGHUP and SIGCONT only once bench has exited and
		// left the plugin's process group orphaned): should anything
		// ever do so, say so, which fails TestPluginFaults, and stop
		// again.
		say("continued after stopping at round %d", st.Round)
		for {
			stopSelf()
		}
	case "panic":
		b.boom(st.Round)
	case "hang-k2":
		if b.s.Arms == 2 {
			say("hanging at round %d", st.Round)
			if p := os.Getenv("FAULTY_PROGRESS"); p != "" {
				os.WriteFile(p, []byte("hanging"), 0o644)
			}
			select {}
		}
	case "crash-exit":
		say("giving up at round %d", st.Round)
		os.Exit(7)
	case "out-of-memory":
		say("allocating at round %d", st.Round)
		outOfMemory()
	case "crash-panic":
		say("about to panic at round %d", st.Round)
		go func() { panic(fmt.Sprintf("faulty crash-panic: boom at round %d", st.Round)) }()
		select {}
	case "hang":
		say("hanging at round %d", st.Round)
		select {}
	case "wrong-arms":
		say("dropping an arm at round %d", st.Round)
		st.Arms = st.Arms[:len(st.Arms)-1]
	case "arm-range":
		say("choosing arm %d at round %d", b.s.Arms, st.Round)
		st.Arms[len(st.Arms)-1] = int32(b.s.Arms)
	case "step-error":
		say("model diverged at round %d", st.Round)
		return fmt.Errorf("faulty step-error: model diverged at round %d", st.Round)
	case "hostile-step":
		sayHostile(fmt.Sprintf("round %d", st.Round))
		return fmt.Errorf("faulty hostile-step: diverged %s at round %d", hostile, st.Round)
	case "hostile-crash":
		sayHostile(fmt.Sprintf("round %d", st.Round))
		os.Exit(7)
	case "raw-frame":
		// The 13-byte frame of issue 15: status 0, 0 arms, 2^32-1
		// diagnostics, which made bench allocate 100 GB.
		rawFrame(st.Round, []byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	case "raw-header":
		// A 9-byte frame whose header promises 256 MiB.
		rawFrame(st.Round, []byte{0, 0, 0, 0x10, 0, 0, 0, 0, 0})
	}
	return nil
}

// rawFrame writes frame on the step socket in place of the SDK's answer
// to round t, and hangs so that the SDK never answers: a raw-protocol
// plugin. The test scenarios have one session per plugin process, so
// there is one step socket.
func rawFrame(t int, frame []byte) {
	fd := stepSocket()
	if fd < 0 {
		say("no step socket at round %d", t)
		os.Exit(2)
	}
	say("writing a raw %d-byte frame at round %d", len(frame), t)
	if _, err := unix.Write(fd, frame); err != nil {
		say("writing the frame: %v", err)
		os.Exit(2)
	}
	select {}
}

// stepSocket returns the descriptor of the SDK's step socket, -1 if
// there is none: the one unix socket bound to a path ending in step.sock.
func stepSocket() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if sa, err := unix.Getsockname(fd); err == nil {
			if u, ok := sa.(*unix.SockaddrUnix); ok && strings.HasSuffix(u.Name, "/step.sock") {
				return fd
			}
		}
	}
	return -1
}

// boom panics in the policy's own code, as a bug would.
func (b *batch) boom(round int) {
	say("about to panic at round %d", round)
	panic(fmt.Sprintf("faulty panic: boom at round %d", round))
}

// mark tells a test waiting for it that the fault is happening: it writes
// the file $FAULTY_MARK.
func mark() {
	if p := os.Getenv("FAULTY_MARK"); p != "" {
		os.WriteFile(p, []byte(mode), 0o644)
	}
}

// outOfMemory dies as a Go program out of memory dies, deterministically:
// the runtime's line and "fatal error: out of memory" on stderr, then a
// dump of every goroutine in a fatal error's format (gp=, m=, fp=, sp=,
// pc=), the failing one first, and exit status 2. The dump is this
// process's own, with goroutines enough to push the header far out of the
// last lines.
func outOfMemory() {
	for range 300 {
		go func() { select {} }()
	}
	buf := make([]byte, 4<<20)
	dump := buf[:runtime.Stack(buf, true)]
	dump = regexp.MustCompile(`(?m)^goroutine (\d+) \[`).ReplaceAll(dump, []byte("goroutine $1 gp=0xc000002380 m=nil ["))
	dump = regexp.MustCompile(`(?m)( \+0x[0-9a-f]+)$`).ReplaceAll(dump, []byte("$1 fp=0xc000047f80 sp=0xc000047f60 pc=0x47d9a3"))
	fmt.Fprintf(stderr, "runtime: out of memory: cannot allocate 1073741824-byte block (3221225472 in use)\nfatal error: out of memory\n\n%s", dump)
	os.Exit(2)
}
