package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/testbin"
)

var escapeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "regretbench-sandbox-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "./testdata/escape", Name: "escape"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	escapeBin = filepath.Join(dir, "escape")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fullPlan is the strict plan; this machine (and CI's) must allow it.
func fullPlan(t *testing.T) Plan {
	t.Helper()
	p, err := Config{Level: Strict}.Plan()
	if err != nil {
		t.Fatalf("this machine cannot run the strict sandbox: %v", err)
	}
	if p.Layers != All {
		t.Fatalf("strict plan has layers %v", p.Layers)
	}
	return p
}

// probe is one run of the escape program: its report per attempt, and
// what the test set up for it to reach.
type probe struct {
	report  map[string]string // attempt -> "ok ..." or "denied: ..."
	arrived map[string]bool   // attempt -> its token reached the test (a socket, a file)
	marker  string            // in the argv of the setsid helper
	dir     string            // the plugin's private directory
}

// sink collects the tokens sent to the test's sockets.
type sink struct {
	mu  sync.Mutex
	got map[string]bool
}

func (k *sink) add(s string) {
	k.mu.Lock()
	k.got[s] = true
	k.mu.Unlock()
}

func (k *sink) has(s string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.got[s]
}

// serve accepts connections on l and adds what each sends to k.
func (k *sink) serve(l net.Listener) {
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				b, _ := io.ReadAll(io.LimitReader(c, 256))
				k.add(string(b))
			}()
		}
	}()
}

// read adds each datagram pc receives to k.
func (k *sink) read(pc net.PacketConn) {
	go func() {
		b := make([]byte, 256)
		for {
			n, _, err := pc.ReadFrom(b)
			if err != nil {
				return
			}
			k.add(string(b[:n]))
		}
	}()
}

// escapeWait bounds every wait on the escape program: its report, its
// exit, a token it sent. Generous, for a loaded machine.
const escapeWait = 60 * time.Second

// sent are the attempts that send their token to the test or write it
// where the test looks.
var sent = []string{"tcp-connect", "udp-connect", "udp-sendto", "unix-connect", "unix-sendto", "write-outside", "write-beside"}

// runEscape runs the escape program under p and returns its report. Off
// says that the sent attempts' tokens should arrive: the test waits for
// them (up to escapeWait) instead of looking once.
func runEscape(t *testing.T, p Plan, stay bool) probe {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(secret, []byte("means: [0.1, 0.9]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outdir, sockdir := t.TempDir(), t.TempDir()
	k := &sink{got: map[string]bool{}}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	k.serve(tcp)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	k.read(udp)
	ul, err := net.Listen("unix", filepath.Join(sockdir, "host.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	k.serve(ul)
	dgram, err := net.ListenPacket("unixgram", filepath.Join(sockdir, "dgram.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer dgram.Close()
	k.read(dgram)
	marker := strconv.FormatInt(time.Now().UnixNano(), 36)
	abstract, err := net.Listen("unix", "@regretbench-test-"+marker)
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	k.serve(abstract)
	dir := t.TempDir()
	token := "tok" + marker
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"ESCAPE_ABSTRACT=regretbench-test-"+marker,
		"ESCAPE_HOSTPID="+strconv.Itoa(os.Getpid()),
		"ESCAPE_SECRET="+secret,
		"ESCAPE_OUTDIR="+outdir,
		"ESCAPE_TCP="+tcp.Addr().String(),
		"ESCAPE_UDP="+udp.LocalAddr().String(),
		"ESCAPE_UNIX="+ul.Addr().String(),
		"ESCAPE_UNIXGRAM="+dgram.LocalAddr().String(),
		"ESCAPE_TOKEN="+token,
		"ESCAPE_SCAN="+os.Args[0],
		"ESCAPE_PRIVATE="+dir,
		"ESCAPE_MARKER="+marker,
		"ESCAPE_HOSTNAME="+hostname,
		"ESCAPE_LEAK=bench-secret",
	)
	if stay {
		env = append(env, "ESCAPE_STAY=1")
	}
	cmd, err := p.Command(escapeBin, env, dir, func(k string) bool {
		return strings.HasPrefix(k, "ESCAPE_") && k != "ESCAPE_LEAK"
	})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Stopped, whatever happens: a test that fails below must not leave
	// the escape program (and its helper) running.
	defer cmd.Stop()
	pr := probe{report: map[string]string{}, arrived: map[string]bool{}, marker: "escape-helper-" + marker, dir: dir}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(escapeWait)
	for done := false; !done; {
		select {
		case line, ok := <-lines:
			if !ok || line == "done" {
				done = true
				break
			}
			name, rest, _ := strings.Cut(line, " ")
			pr.report[name] = rest
		case <-timeout:
			cmd.Stop()
			t.Fatalf("the escape program did not report \"done\" within %v; got %d attempts; stderr:\n%s", escapeWait, len(pr.report), stderr.String())
		}
	}
	if stay {
		cmd.Stop()
	}
	go func() {
		for range lines {
		}
	}()
	if err := waitBounded(t, cmd, "the escape program's launcher, after its report"); !stay && err != nil {
		t.Fatalf("escape: %v\n%s", err, stderr.String())
	}
	if len(pr.report) == 0 {
		t.Fatalf("escape reported nothing; stderr:\n%s", stderr.String())
	}
	for _, name := range sent {
		tok := token + "-" + name
		arrived := func() bool {
			switch name {
			case "write-outside":
				b, _ := os.ReadFile(filepath.Join(outdir, "escaped"))
				return string(b) == tok
			case "write-beside":
				b, _ := os.ReadFile(filepath.Join(filepath.Dir(escapeBin), "escaped-"+tok))
				os.Remove(filepath.Join(filepath.Dir(escapeBin), "escaped-"+tok))
				return string(b) == tok
			}
			return k.has(tok)
		}
		// A token the program says it sent gets escapeWait to arrive; one
		// it was denied is looked for once.
		deadline := time.Now()
		if strings.HasPrefix(pr.report[name], "ok") {
			deadline = deadline.Add(escapeWait)
		}
		for !pr.arrived[name] {
			pr.arrived[name] = arrived()
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, a := range attempts {
		t.Logf("%s: %s", a.name, pr.report[a.name])
	}
	return pr
}

// waitBounded waits for c's launcher to exit, up to escapeWait; past it,
// it fails t naming what it waited for, and kills the launcher's process
// group.
func waitBounded(t *testing.T, c *Cmd, what string) error {
	t.Helper()
	werr := make(chan error, 1)
	go func() { werr <- c.Wait() }()
	select {
	case err := <-werr:
		return err
	case <-time.After(escapeWait):
		c.Stop()
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		t.Errorf("waited %v for %s (pid %d) to exit; killed its process group", escapeWait, what, c.Process.Pid)
		return <-werr
	}
}

// survivors lists the processes whose command line holds marker.
func survivors(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(marker)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// noSurvivor fails t if a process with marker is still alive a while
// after its plugin's end (the kill is asynchronous: allow it to land).
func noSurvivor(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := survivors(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("helper processes %v outlived their plugin by 30s (killed now)", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The attempts of testdata/escape (its table, attempts.go), and what each
// must do: where it must work unconfined, the strict test's "denied" has
// teeth. Those marked yama need, with the sandbox off, a Yama
// ptrace_scope of 0 (PTRACE_MODE_ATTACH of an ancestor). Not here: what a
// plugin needs (mustWork) and launcher-cmdline, which is checked alone.
var attempts = []struct {
	name   string
	offOK  bool // works with the sandbox off
	strict bool // denied under strict
	yama   bool // works with the sandbox off unless Yama forbids
}{
	{"read-etc-passwd", true, true, false},
	{"read-secret", true, true, false},
	{"read-host-environ", true, true, false},
	{"read-host-cmdline", true, true, false},
	{"read-host-exe", true, true, false},
	{"write-outside", true, true, false},
	{"write-beside", true, true, false},
	{"env-leak", true, true, false},
	{"proc-others", true, true, false},
	{"hostname", true, true, false},
	{"proc-scan", true, true, false},
	{"signal-host", true, true, false},
	{"ptrace-host", false, true, true},
	{"vm-read-host", false, true, true},
	// Nothing of bench's image or memory: the launcher is bench.
	{"launcher-mem", false, true, true},
	{"launcher-maps", true, true, false},
	{"launcher-environ", true, true, false},
	{"launcher-exe", true, true, false},
	{"signal-launcher", true, true, false},
	{"ptrace-launcher", false, true, false},
	{"vm-read-launcher", false, true, false},
	{"tcp-connect", true, true, false},
	{"udp-connect", true, true, false},
	{"udp-sendto", true, true, false},
	{"unix-connect", true, true, false},
	{"unix-sendto", true, true, false},
	{"socket-inet6", true, true, false},
	{"socket-netlink", true, true, false},
	{"socket-unix-dgram", true, true, false},
	{"unshare-user", true, true, false},
	{"mount", false, true, false},
	{"io-uring", false, true, false},
	{"capabilities", false, true, false},
	// Channels between two policies' plugins.
	{"lock-flock", true, true, false},
	{"lock-fcntl", true, true, false},
	{"lock-fcntl-getlk", true, true, false},
	{"lock-ofd", true, true, false},
	{"lock-fcntl-highbits", true, true, false},
	{"lease", false, true, false}, // unconfined, only the file's owner may
	{"dnotify", true, true, false},
	{"inotify", true, true, false},
	{"sysv-shm", true, true, false},
	{"sysv-msg", true, true, false},
	{"sysv-sem", true, true, false},
	{"mqueue", true, true, false},
	{"unix-connect-abstract", true, true, false},
}

// mustWork are the attempts a plugin needs: they work at every level.
var mustWork = []string{"write-private", "listen-unix", "setsid-helper"}

// confinedOnly are the attempts that only the namespaces deny, not
// Landlock and seccomp alone.
var confinedOnly = map[string]bool{"mount": true, "capabilities": true, "socket-netlink": true,
	"socket-unix-dgram": true, "read-host-cmdline": true, "ptrace-launcher": true, "vm-read-launcher": true,
	"hostname": true}

// yamaScope is Yama's ptrace_scope, 0 without Yama.
func yamaScope() int {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// checkProbe fails t for what the escape program reported under level
// that the tables above do not allow: an attempt it made that the test
// does not know (the tables and the program have drifted), one the test
// knows that it did not report, a token of a denied attempt that arrived,
// a step a plugin needs that failed, and a launcher command line that
// shows the launch spec (the plugin's path, its private directory, JSON;
// at every level it must report "shows nothing of the run").
func checkProbe(t *testing.T, level string, pr probe) {
	t.Helper()
	known := map[string]bool{"launcher-cmdline": true}
	for _, a := range attempts {
		known[a.name] = true
		if _, ok := pr.report[a.name]; !ok {
			t.Errorf("%s: not reported %s", a.name, level)
		}
	}
	for _, n := range mustWork {
		known[n] = true
		if got := pr.report[n]; !strings.HasPrefix(got, "ok") {
			t.Errorf("%s %s: %s, want ok (a plugin needs it)", n, level, got)
		}
	}
	for n := range pr.report {
		if !known[n] {
			t.Errorf("the escape program made attempt %q, which the test's tables do not know", n)
		}
	}
	for _, n := range sent {
		if pr.arrived[n] && !strings.HasPrefix(pr.report[n], "ok") {
			t.Errorf("%s %s: reported %s, but its token arrived", n, level, pr.report[n])
		}
	}
	if got := pr.report["launcher-cmdline"]; !strings.HasPrefix(got, "denied") {
		t.Errorf("launcher-cmdline %s: %s, want it to show nothing of the launch spec", level, got)
	}
}

func TestStrictDeniesEscapes(t *testing.T) {
	p := fullPlan(t)
	pr := runEscape(t, p, false)
	checkProbe(t, "under strict", pr)
	for _, a := range attempts {
		if got := pr.report[a.name]; a.strict && !strings.HasPrefix(got, "denied") {
			t.Errorf("%s under strict: %s, want denied", a.name, got)
		}
		if pr.arrived[a.name] {
			t.Errorf("%s under strict: its token reached the test", a.name)
		}
	}
	noSurvivor(t, pr.marker)
}

func TestOffAllowsEscapes(t *testing.T) {
	p, err := Config{Level: Off}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	pr := runEscape(t, p, false)
	checkProbe(t, "with the sandbox off", pr)
	yama := yamaScope()
	for _, a := range attempts {
		if (a.offOK || a.yama && yama == 0) && !strings.HasPrefix(pr.report[a.name], "ok") {
			t.Errorf("%s with the sandbox off: %s, want ok (else the strict test proves nothing)", a.name, pr.report[a.name])
		}
	}
	// Readable, so the check that it shows nothing has teeth.
	if got := pr.report["launcher-cmdline"]; !strings.HasPrefix(got, "denied: shows nothing of the run") {
		t.Errorf("launcher-cmdline with the sandbox off: %s, want it readable (and showing nothing of the launch spec)", got)
	}
	for _, n := range sent {
		if !pr.arrived[n] {
			t.Errorf("%s with the sandbox off: its token did not reach the test within %v (else the strict test proves nothing)", n, escapeWait)
		}
	}
	// Off still reaps: the setsid helper goes with its plugin.
	noSurvivor(t, pr.marker)
}

// TestNoNamespaces: where user namespaces are off (Ubuntu 24.04's
// default), auto falls back to Landlock and seccomp; they still deny what
// they cover, and the launcher, a child subreaper, still kills a setsid
// helper.
func TestNoNamespaces(t *testing.T) {
	p := fullPlan(t)
	p.Layers = Landlock | Seccomp
	pr := runEscape(t, p, false)
	checkProbe(t, "under landlock+seccomp", pr)
	for _, a := range attempts {
		if confinedOnly[a.name] {
			continue
		}
		if got := pr.report[a.name]; !strings.HasPrefix(got, "denied") {
			t.Errorf("%s under landlock+seccomp: %s, want denied", a.name, got)
		}
		if pr.arrived[a.name] {
			t.Errorf("%s under landlock+seccomp: its token reached the test", a.name)
		}
	}
	noSurvivor(t, pr.marker)
}

// TestStopKillsDescendants: a plugin that is still running when bench asks
// (or dies: the lifeline closes either way) goes, with its setsid helper,
// at every level. runEscape bounds each wait (escapeWait): the off case,
// where the probe ptrace-seizes its launcher and bench, once hung here
// when the probe detached with PTRACE_DETACH, which needs a ptrace-stop.
func TestStopKillsDescendants(t *testing.T) {
	full := fullPlan(t)
	off, _ := Config{Level: Off}.Plan()
	noNS := full
	noNS.Layers = Landlock | Seccomp
	for _, tc := range []struct {
		name string
		p    Plan
	}{{"strict", full}, {"landlock+seccomp", noNS}, {"off", off}} {
		t.Run(tc.name, func(t *testing.T) {
			pr := runEscape(t, tc.p, true)
			if !strings.HasPrefix(pr.report["setsid-helper"], "ok") {
				t.Fatalf("setsid-helper: %s", pr.report["setsid-helper"])
			}
			noSurvivor(t, pr.marker)
		})
	}
}

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Level
		err  bool
	}{{"auto", Auto, false}, {"", Auto, false}, {"STRICT", Strict, false}, {"off", Off, false}, {"none", Auto, true}} {
		got, err := ParseLevel(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseLevel(%q) = %v, %v", tc.in, got, err)
		}
	}
	for _, tc := range []struct {
		l    Layers
		want string
	}{{All, "strict"}, {0, "off"}, {Landlock | Seccomp, "landlock+seccomp"}, {Seccomp, "seccomp"}} {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("%08b: %q, want %q", tc.l, got, tc.want)
		}
	}
}

// TestLauncherRefusesHostNamespaces: a launcher asked for namespaces but
// started without them (a caller that dropped the clone flags) refuses to
// mount anything: as root it would otherwise stack a /proc on the
// machine's own.
func TestLauncherRefusesHostNamespaces(t *testing.T) {
	exe, _, _ := detect()
	dir := t.TempDir()
	c, err := command(exe, spec{Path: "/bin/true", Dir: dir, Layers: All, Write: []string{dir}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	c.SysProcAttr.Cloneflags = 0
	c.SysProcAttr.UidMappings, c.SysProcAttr.GidMappings = nil, nil
	before := procMounts(t)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	err = waitBounded(t, c, "the launcher started without namespaces")
	if err == nil || !strings.Contains(stderr.String(), "not the init of a new PID namespace") {
		t.Errorf("launcher without namespaces: %v, stderr %q; want a refusal", err, stderr.String())
	}
	if after := procMounts(t); after != before {
		t.Errorf("/proc mounts went from %d to %d", before, after)
	}
}

func procMounts(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte(" /proc "))
}

// TestOpenChannels: strict leaves no channel between two plugins open;
// the fallback names the PID counter and abstract socket names (and
// signals where Landlock cannot scope them); off names everything.
func TestOpenChannels(t *testing.T) {
	for _, tc := range []struct {
		layers Layers
		want   []string // substrings, one per channel
	}{
		{All, nil},
		{Landlock | Seccomp, []string{"PID counter", "abstract unix socket"}},
		{Namespaces | Landlock, []string{"file locks"}},
		{0, []string{"everything"}},
	} {
		got := Plan{Layers: tc.layers}.OpenChannels()
		if tc.layers == Landlock|Seccomp && landlockABI() < 6 {
			tc.want = append(tc.want, "signals")
		}
		if len(got) != len(tc.want) {
			t.Errorf("%v: %q, want %d channels like %q", tc.layers, got, len(tc.want), tc.want)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%v: channel %d is %q, want it to name %q", tc.layers, i, got[i], w)
			}
		}
	}
}

// TestConfineOrder: confine applies every step for the whole launcher
// before the first that confines one thread (the launcher's main thread
// stays outside the plugin's Landlock domain), builds each layer before
// it enforces it, and enforces seccomp last of the layers.
func TestConfineOrder(t *testing.T) {
	at := map[string]int{}
	firstThread := -1
	for i, s := range order {
		if _, dup := at[s.name]; dup {
			t.Errorf("step %q twice", s.name)
		}
		at[s.name] = i
		switch {
		case s.thread && firstThread < 0:
			firstThread = i
		case !s.thread && firstThread >= 0:
			t.Errorf("step %q applies to the whole launcher but comes after the thread step %q", s.name, order[firstThread].name)
		}
	}
	for _, before := range [][2]string{
		{"limits", "non-dumpable"}, {"namespaces", "mounts"}, {"mounts", "hostname"},
		{"landlock ruleset", "capabilities"}, {"seccomp filter", "capabilities"},
		{"capabilities", "no_new_privs"}, {"no_new_privs", "landlock"}, {"landlock", "seccomp"},
		{"seccomp", "descriptors"},
	} {
		a, aok := at[before[0]]
		b, bok := at[before[1]]
		if !aok || !bok || a >= b {
			t.Errorf("step %q must come before %q: order %v", before[0], before[1], stepNames())
		}
	}
}

func stepNames() []string {
	var out []string
	for _, s := range order {
		out = append(out, s.name)
	}
	return out
}
