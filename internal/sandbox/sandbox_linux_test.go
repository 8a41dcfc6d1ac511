package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	report map[string]string // attempt -> "ok ..." or "denied: ..."
	udpGot bool              // the UDP listener received a datagram
	marker string            // in the argv of the setsid helper
	dir    string            // the plugin's private directory
}

// runEscape runs the escape program under p and returns its report.
func runEscape(t *testing.T, p Plan, stay bool) probe {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(secret, []byte("means: [0.1, 0.9]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outdir := t.TempDir()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	sock := filepath.Join(t.TempDir(), "host.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	marker := strconv.FormatInt(time.Now().UnixNano(), 36)
	abstract, err := net.Listen("unix", "@regretbench-test-"+marker)
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	go func() {
		for {
			c, err := abstract.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	env := append(os.Environ(),
		"ESCAPE_ABSTRACT=regretbench-test-"+marker,
		"ESCAPE_HOSTPID="+strconv.Itoa(os.Getpid()),
		"ESCAPE_SECRET="+secret,
		"ESCAPE_OUTDIR="+outdir,
		"ESCAPE_TCP="+tcp.Addr().String(),
		"ESCAPE_UDP="+udp.LocalAddr().String(),
		"ESCAPE_UNIX="+sock,
		"ESCAPE_MARKER="+marker,
		"ESCAPE_LEAK=bench-secret",
	)
	if stay {
		env = append(env, "ESCAPE_STAY=1")
	}
	dir := t.TempDir()
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
	pr := probe{report: map[string]string{}, marker: "escape-helper-" + marker, dir: dir}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if line == "done" {
			break
		}
		name, rest, _ := strings.Cut(line, " ")
		pr.report[name] = rest
	}
	if stay {
		cmd.Stop()
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	werr := cmd.Wait()
	if !stay && werr != nil {
		t.Fatalf("escape: %v\n%s", werr, stderr.String())
	}
	udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	var b [16]byte
	if n, _, err := udp.ReadFrom(b[:]); err == nil && n > 0 {
		pr.udpGot = true
	}
	if len(pr.report) == 0 {
		t.Fatalf("escape reported nothing; stderr:\n%s", stderr.String())
	}
	for _, a := range attempts {
		t.Logf("%s: %s", a.name, pr.report[a.name])
	}
	return pr
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
			t.Fatalf("helper processes %v outlived their plugin", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The attempts, and whether each must work unconfined: where it must,
// the strict test's "denied" has teeth. Those marked yama need, with the
// sandbox off, a Yama ptrace_scope of 0 (PTRACE_MODE_ATTACH of a parent).
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
	{"env-leak", true, true, false},
	{"proc-others", true, true, false},
	{"signal-host", true, true, false},
	{"ptrace-parent", false, true, false},
	{"ptrace-host", false, true, false},
	{"process-vm-readv", false, true, false},
	{"tcp-connect", true, true, false},
	{"udp-send", true, true, false},
	{"unix-connect", true, true, false},
	{"socket-inet6", true, true, false},
	{"socket-netlink", true, true, false},
	{"socket-unix-dgram", true, true, false},
	{"unshare-user", true, true, false},
	{"mount", false, true, false},
	{"io-uring", false, true, false},
	{"capabilities", false, true, false},
	// Nothing of bench's image or memory: the launcher is bench.
	{"launcher-mem", false, true, true},
	{"launcher-maps", true, true, false},
	{"launcher-environ", true, true, false},
	{"launcher-exe", true, true, false},
	{"signal-launcher", true, true, false},
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

// confinedOnly are the attempts that only the namespaces deny, not
// Landlock and seccomp alone.
var confinedOnly = map[string]bool{"mount": true, "capabilities": true, "socket-netlink": true,
	"socket-unix-dgram": true, "read-host-cmdline": true, "ptrace-parent": true, "process-vm-readv": true}

// yamaScope is Yama's ptrace_scope, 0 without Yama.
func yamaScope() int {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// launcherCmdlineClean fails t if the launcher's command line, where the
// plugin could read it, shows its spec: the plugin's path, its private
// directory, or any JSON.
func launcherCmdlineClean(t *testing.T, level string, pr probe) {
	t.Helper()
	got := pr.report["launcher-cmdline"]
	if !strings.HasPrefix(got, "ok") {
		return
	}
	if strings.Contains(got, "{") || strings.Contains(got, escapeBin) || strings.Contains(got, pr.dir) {
		t.Errorf("launcher-cmdline %s: %s, want nothing of the launch spec", level, got)
	}
}

func TestStrictDeniesEscapes(t *testing.T) {
	p := fullPlan(t)
	pr := runEscape(t, p, false)
	for _, a := range attempts {
		got, ok := pr.report[a.name]
		if !ok {
			t.Errorf("%s: not reported", a.name)
			continue
		}
		if a.strict && !strings.HasPrefix(got, "denied") {
			t.Errorf("%s under strict: %s, want denied", a.name, got)
		}
	}
	if pr.udpGot {
		t.Error("udp-send under strict: a datagram reached the host")
	}
	launcherCmdlineClean(t, "under strict", pr)
	for _, name := range []string{"write-private", "listen-unix", "setsid-helper"} {
		if got := pr.report[name]; !strings.HasPrefix(got, "ok") {
			t.Errorf("%s under strict: %s, want ok (a plugin needs it)", name, got)
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
	yama := yamaScope()
	for _, a := range attempts {
		if (a.offOK || a.yama && yama == 0) && !strings.HasPrefix(pr.report[a.name], "ok") {
			t.Errorf("%s with the sandbox off: %s, want ok (else the strict test proves nothing)", a.name, pr.report[a.name])
		}
	}
	if !pr.udpGot {
		t.Error("udp-send with the sandbox off: no datagram arrived")
	}
	if got := pr.report["launcher-cmdline"]; !strings.HasPrefix(got, "ok") {
		t.Errorf("launcher-cmdline with the sandbox off: %s, want ok", got)
	}
	launcherCmdlineClean(t, "with the sandbox off", pr)
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
	for _, a := range attempts {
		if confinedOnly[a.name] {
			continue
		}
		if got := pr.report[a.name]; !strings.HasPrefix(got, "denied") {
			t.Errorf("%s under landlock+seccomp: %s, want denied", a.name, got)
		}
	}
	launcherCmdlineClean(t, "under landlock+seccomp", pr)
	for _, name := range []string{"write-private", "listen-unix", "setsid-helper"} {
		if got := pr.report[name]; !strings.HasPrefix(got, "ok") {
			t.Errorf("%s under landlock+seccomp: %s, want ok", name, got)
		}
	}
	noSurvivor(t, pr.marker)
}

// TestStopKillsDescendants: a plugin that is still running when bench asks
// (or dies: the lifeline closes either way) goes, with its setsid helper,
// at every level.
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
	err = c.Wait()
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
