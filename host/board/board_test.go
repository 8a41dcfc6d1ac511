package board_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/regretbench/regretbench/host/board"
	"github.com/regretbench/regretbench/host/htmlreport/htmlcheck"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/testbin"
)

// binDir holds bench, the Thompson-sampling and UCB1 plugins (shipped
// plugins as submissions) and cheat-pool, the end-to-end tests' audit cheat, built from its
// path there.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "regretbench-board")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = testbin.Build(dir, testbin.Options{},
		testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench", Name: "bench"},
		testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-ts", Name: "bench-plugin-ts"},
		testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-ucb1", Name: "bench-plugin-ucb1"},
		testbin.Main{Pkg: "../e2e/testdata/cheat/pool", Name: "bench-plugin-cheat-pool"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// deadline bounds every bench a test runs: generous, it only keeps a hung
// bench from hanging the test, and says what was waited for.
const deadline = 3 * time.Minute

// bench runs the bench executable with args and returns its stdout,
// stderr and exit code.
func bench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "bench"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("bench %s: still running after %v (waited for it to exit)\nstderr:\n%s", strings.Join(args, " "), deadline, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("bench %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// needStrict skips where the machine cannot run the strict sandbox,
// which every board run uses: bench says what is missing.
func needStrict(t *testing.T) {
	t.Helper()
	strictOnce.Do(func() {
		cmd := exec.Command(filepath.Join(binDir, "bench"), "plugins", "--sandbox", "strict", "--plugin-dir", binDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			strictMissing = strings.TrimSpace(string(out))
		}
	})
	if strictMissing != "" {
		t.Skipf("a board runs submissions under --sandbox strict, which this machine cannot: %s", strictMissing)
	}
}

var (
	strictOnce    sync.Once
	strictMissing string
)

// pythonSubmission makes a directory submission of the Python KL-UCB
// example with the SDK's package beside it (what its interpreter reads),
// or "" and why not where Debian's python3 lacks grpc or numpy.
func pythonSubmission(t *testing.T) (string, string) {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", "-c", "import grpc, google.protobuf, numpy").CombinedOutput(); err != nil {
		return "", fmt.Sprintf("/usr/bin/python3 cannot import grpc, protobuf and numpy (Debian's python3-grpcio, python3-protobuf, python3-numpy): %v %s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "klucbpy")
	copyTree(t, filepath.Join("..", "..", "examples", "python", "bench-plugin-klucbpy"), filepath.Join(dir, "bench-plugin-klucbpy"))
	copyTree(t, filepath.Join("..", "..", "sdk", "python", "regretbench"), filepath.Join(dir, "regretbench"))
	return dir, ""
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hostile is the cheat's submitter: a name that would run script in a
// page that did not escape it.
const hostile = `mallory <img src=x onerror=alert(1)><script>alert("board")</script>`

// round is a board's round played once for every test: opened, three
// submissions (the shipped TS plugin, the Python KL-UCB as a directory
// where Python can run it, and the audit cheat), one refused over its
// limit, and revealed. sealed is a copy taken before the reveal.
type round struct {
	dir, sealed string
	python      string // why the Python submission was left out, "" when it ran
	seed        string
	submitOut   []string
	refused     string // stderr of the refused submission
	refusedCode int
}

var (
	roundOnce sync.Once
	theRound  *round
	roundErr  string
)

func playedRound(t *testing.T) *round {
	t.Helper()
	needStrict(t)
	roundOnce.Do(func() { theRound, roundErr = playRound(t) })
	if roundErr != "" {
		t.Fatal(roundErr)
	}
	return theRound
}

func playRound(t *testing.T) (*round, string) {
	base, err := os.MkdirTemp(binDir, "round-")
	if err != nil {
		return nil, err.Error()
	}
	r := &round{dir: filepath.Join(base, "board"), sealed: filepath.Join(base, "sealed")}
	must := func(want int, args ...string) (string, string) {
		out, stderr, code := bench(t, args...)
		if code != want {
			roundErr = fmt.Sprintf("bench %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, stderr)
		}
		return out, stderr
	}
	// --conform=false: this round is the audit's (the conformance kit
	// would stop the cheat first: TestSubmitConform).
	must(0, "board", "init", r.dir, "--suite", filepath.Join("testdata", "hard.yaml"), "--audit", "2", "--limit", "1", "--name", "test-board", "--conform=false")
	if roundErr != "" {
		return nil, roundErr
	}
	must(0, "board", "open", r.dir)
	out, _ := must(0, "board", "submit", r.dir, "--submitter", "alice", filepath.Join(binDir, "bench-plugin-ts"))
	r.submitOut = append(r.submitOut, out)
	py, why := pythonSubmission(t)
	r.python = why
	if py != "" {
		out, _ = must(0, "board", "submit", r.dir, "--submitter", "bob", py)
		r.submitOut = append(r.submitOut, out)
	}
	out, _ = must(3, "board", "submit", r.dir, "--submitter", hostile, filepath.Join(binDir, "bench-plugin-cheat-pool"))
	r.submitOut = append(r.submitOut, out)
	if roundErr != "" {
		return nil, roundErr
	}
	_, r.refused, r.refusedCode = bench(t, "board", "submit", r.dir, "--submitter", hostile, filepath.Join(binDir, "bench-plugin-ts"))
	if err := os.CopyFS(r.sealed, os.DirFS(r.dir)); err != nil {
		return nil, err.Error()
	}
	must(0, "board", "reveal", r.dir)
	var rd board.Round
	data, err := os.ReadFile(filepath.Join(r.dir, "round.json"))
	if err == nil {
		err = json.Unmarshal(data, &rd)
	}
	if err != nil {
		return nil, err.Error()
	}
	r.seed = rd.Seed
	return r, roundErr
}

// TestBoardRound: a round runs end to end. Each submission ran under the
// strict sandbox with the round's seed and an audit; the cheat that pools
// its replications is recorded as failed with the audit's reason, not
// dropped; a submitter over its limit is refused and nothing is
// recorded; before the reveal nothing outside private/ holds the seed,
// and after it the seed's SHA-256 is the commitment published first.
func TestBoardRound(t *testing.T) {
	t.Parallel()
	r := playedRound(t)
	if r.python != "" {
		t.Logf("the Python submission was left out: %s", r.python)
	}
	if r.refusedCode != 2 || !strings.Contains(r.refused, fmt.Sprintf("submitter %q has made its 1 submissions of this round: refused", hostile)) {
		t.Errorf("a second submission over the limit of 1: exit %d, want 2, stderr:\n%s", r.refusedCode, r.refused)
	}
	cheat := r.submitOut[len(r.submitOut)-1]
	for _, want := range []string{fmt.Sprintf("%q by %q): failed", "cheat-pool", hostile), "audit: replication", "depend on the other replications"} {
		if !strings.Contains(cheat, want) {
			t.Errorf("the cheat's submission does not say %q:\n%s", want, cheat)
		}
	}

	b, err := board.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.Rows()
	if err != nil {
		t.Fatal(err)
	}
	wantRows := 3
	if r.python != "" { // the Python submission left out
		wantRows = 2
	}
	if len(rows) != wantRows {
		t.Fatalf("%d rows, want %d (the refused submission must not be recorded)", len(rows), wantRows)
	}
	for _, row := range rows {
		p := row.Run
		sc := p.Scenarios[0]
		if sc.Sandbox != "strict" {
			t.Errorf("%s: ran under sandbox %q, want strict", p.Plugin, sc.Sandbox)
		}
		if sc.Audit == nil || len(sc.Audit.Replications) != 2 {
			t.Errorf("%s: audit %+v, want 2 replications replayed", p.Plugin, sc.Audit)
		}
		wantOK := p.Plugin != "cheat-pool"
		if (p.Outcome == board.OutcomeOK) != wantOK || (sc.Audit != nil && sc.Audit.OK != wantOK) {
			t.Errorf("%s: outcome %s (%s), audit %+v; want ok %v", p.Plugin, p.Outcome, p.Reason, sc.Audit, wantOK)
		}
		res, err := os.ReadFile(filepath.Join(r.dir, "runs", fmt.Sprint(p.Submission), "results", "hard.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(res, []byte(r.seed)) {
			t.Errorf("%s: its results file does not record the round's seed %s", p.Plugin, r.seed)
		}
	}

	// Before the reveal: the seed is in private/ only.
	err = filepath.WalkDir(r.sealed, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "private" {
				return filepath.SkipDir
			}
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(r.seed[2:])) {
			t.Errorf("before the reveal, %s holds the seed", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.sealed, "runs", "0", "results")); err == nil {
		t.Error("before the reveal, runs/0/results exists: results files hold the seed")
	}
	h := sha256.Sum256([]byte(r.seed))
	rd, err := b.Round()
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(h[:]) != rd.Commitment || rd.Index != 0 {
		t.Errorf("the seed's SHA-256 is %x; round.json's commitment %s at log record %d (want record 0, before every run)", h, rd.Commitment, rd.Index)
	}

	out, stderr, code := bench(t, "board", "status", r.dir)
	if code != 0 {
		t.Fatalf("board status: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"round: closed; seed " + r.seed, `"alice"`, `"ts"`, `"cheat-pool"`, "failed", "strict"} {
		if !strings.Contains(out, want) {
			t.Errorf("board status lacks %q:\n%s", want, out)
		}
	}
	t.Logf("board status:\n%s", out)
}

// TestVerifyRerun: every row of the played round verifies, and rerun
// with the revealed seed under the strict sandbox gives bit-identical
// results (the cheat's failed audit included).
func TestVerifyRerun(t *testing.T) {
	t.Parallel()
	r := playedRound(t)
	out, stderr, code := bench(t, "verify", "--rerun", r.dir)
	if code != 0 || strings.Count(out, ": verified") != strings.Count(out, "\n") {
		t.Fatalf("verify --rerun: exit %d\n%s\n%s", code, out, stderr)
	}
	if strings.Contains(out, "note:") {
		t.Errorf("verify --rerun left something unchecked:\n%s", out)
	}
	t.Log(out)
}

// TestVerifySealed: before the reveal, verify checks what is published
// (signatures, the log) and says what it cannot check yet.
func TestVerifySealed(t *testing.T) {
	t.Parallel()
	r := playedRound(t)
	out, _, code := bench(t, "verify", r.sealed+":1")
	if code != 0 || !strings.Contains(out, "verified") || !strings.Contains(out, "not published before the reveal") {
		t.Errorf("verify of a sealed row: exit %d\n%s", code, out)
	}
}

// TestVerifyTamper: each piece a row rests on, changed, makes bench
// verify fail and name that piece.
func TestVerifyTamper(t *testing.T) {
	t.Parallel()
	r := playedRound(t)
	edit := func(path string, f func([]byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, path)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out := f(data)
			if bytes.Equal(out, data) {
				t.Fatalf("%s: the tampering changed nothing", path)
			}
			if err := os.WriteFile(p, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	replace := func(path, old, new string) func(t *testing.T, dir string) {
		return edit(path, func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) })
	}
	tests := []struct {
		name  string
		row   string // the ROW argument, relative to the board
		held  bool   // verify with --checkpoint: the checkpoint saved before the tampering
		key   bool   // verify with --key: the board's key as published before the tampering
		do    func(t *testing.T, dir string)
		wants []string
	}{
		{name: "result value", row: ":1", do: edit("runs/0/results/hard.json", func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"final": {`))
			j := i + bytes.IndexAny(b[i:], "123456789")
			out := bytes.Clone(b)
			out[j] = "23456789"[(out[j]-'1')%8] // another digit
			return out
		}), wants: []string{"results hard: ", "runs/0/results/hard.json: SHA-256 ", ", attested "}},
		{name: "plugin byte", row: ":1", do: edit("runs/0/plugin/bench-plugin-ts", func(b []byte) []byte {
			out := bytes.Clone(b)
			out[len(out)/2] ^= 1
			return out
		}), wants: []string{"plugin: bench-plugin-ts: SHA-256 "}},
		{name: "seed", row: ":1", do: edit("round.json", func(b []byte) []byte {
			return bytes.Replace(b, []byte(r.seed[:10]), []byte("0xbadc0ffee"[:10]), 1)
		}), wants: []string{"seed: the revealed seed's SHA-256 is "}},
		{name: "sandbox level", row: ":1", do: replace("runs/0/results/hard.json", `"sandbox": "strict"`, `"sandbox": "off"`),
			wants: []string{`sandbox: results of hard: the plugin ran under "off", attested "strict"`, "results hard: "}},
		{name: "log order", row: ":1", do: func(t *testing.T, dir string) {
			a, b := filepath.Join(dir, "log/entries/00000001.json"), filepath.Join(dir, "log/entries/00000002.json")
			tmp := a + ".tmp"
			for _, mv := range [][2]string{{a, tmp}, {b, a}, {tmp, b}} {
				if err := os.Rename(mv[0], mv[1]); err != nil {
					t.Fatal(err)
				}
			}
		}, wants: []string{"log order: entry file 1 holds the record logged at 2", "log order: the attestation says it is log record 2; it is record 1"}},
		{name: "checkpoint", row: ":1", do: edit("log/checkpoint", func(b []byte) []byte {
			lines := bytes.SplitN(b, []byte("\n"), 3)
			return bytes.Join([][]byte{lines[0], []byte("2"), lines[2]}, []byte("\n"))
		}), wants: []string{"checkpoint: the last checkpoint: ", "signature: "}},
		{name: "row removed", row: ":1", held: true, do: func(t *testing.T, dir string) {
			// The last row dropped, the log put back as it was before it:
			// every file consistent, signed, but shorter than what a
			// verifier saw.
			n := 0
			leaves, _ := os.ReadFile(filepath.Join(dir, "log/leaves"))
			n = bytes.Count(leaves, []byte("\n"))
			last := fmt.Sprintf("%08d", n-1)
			os.Remove(filepath.Join(dir, "log/entries", last+".json"))
			os.Remove(filepath.Join(dir, "log/checkpoints", fmt.Sprintf("%08d", n)))
			prev, err := os.ReadFile(filepath.Join(dir, "log/checkpoints", last))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "log/checkpoint"), prev, 0o644)
			lines := bytes.SplitAfter(leaves, []byte("\n"))
			os.WriteFile(filepath.Join(dir, "log/leaves"), bytes.Join(lines[:n-1], nil), 0o644)
		}, wants: []string{"checkpoint: the checkpoint ", "records were removed"}},
		{name: "key", row: ":1", key: true, do: func(t *testing.T, dir string) {
			// Another key in board.json: the board's rows, signed with
			// the first, and a verifier who knows it, tell.
			other := filepath.Join(t.TempDir(), "other")
			if out, stderr, code := bench(t, "board", "init", other, "--suite", "quick", "--name", "test-board"); code != 0 {
				t.Fatalf("board init: exit %d\n%s%s", code, out, stderr)
			}
			var cfg, ocfg map[string]any
			readJSON(t, filepath.Join(dir, "board.json"), &cfg)
			readJSON(t, filepath.Join(other, "board.json"), &ocfg)
			cfg["key"] = ocfg["key"]
			data, _ := json.Marshal(cfg)
			if err := os.WriteFile(filepath.Join(dir, "board.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, wants: []string{"key: board.json's key test-board+", "signature: the envelope is not signed by the board's key"}},
		{name: "signature", row: ":1", do: edit("log/entries/00000001.json", func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"sig": "`)) + len(`"sig": "`)
			out := bytes.Clone(b)
			if out[i] == 'A' {
				out[i] = 'B'
			} else {
				out[i] = 'A'
			}
			return out
		}), wants: []string{"signature: the envelope is not signed by the board's key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "board")
			if err := os.CopyFS(dir, os.DirFS(r.dir)); err != nil {
				t.Fatal(err)
			}
			held := filepath.Join(t.TempDir(), "checkpoint")
			if data, err := os.ReadFile(filepath.Join(dir, "log/checkpoint")); err != nil {
				t.Fatal(err)
			} else if err := os.WriteFile(held, data, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"verify", dir + tt.row}
			if tt.held {
				args = append(args, "--checkpoint", held)
			}
			if tt.key {
				b, err := board.Load(dir)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, "--key", b.Config.Key)
			}
			if out, _, code := bench(t, args...); code != 0 {
				t.Fatalf("before the tampering: exit %d\n%s", code, out)
			}
			tt.do(t, dir)
			out, stderr, code := bench(t, args...)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s", code, stderr)
			}
			for _, want := range tt.wants {
				if !strings.Contains(out, want) {
					t.Errorf("verify does not say %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestDifferences: what a rerun compares names the field and the policy
// that differ, bit for bit (a rerun cannot be forged into agreeing: the
// recorded file's digest is signed).
func TestDifferences(t *testing.T) {
	t.Parallel()
	r := playedRound(t)
	path := filepath.Join(r.dir, "runs", "0", "results", "hard.json")
	a, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b.Policies[0].Seconds++ // timing is not compared
	if d := board.Differences(a, b); len(d) != 0 {
		t.Fatalf("a file and its copy differ: %v", d)
	}
	fin := b.Policies[0].Final["regret"]
	fin[3] = math.Nextafter(fin[3], math.Inf(1)) // one ulp
	b.Policies[0].Audit.OK = false
	d := strings.Join(board.Differences(a, b), "\n")
	for _, want := range []string{"policy ts: final.regret: recorded", "policy ts: audit: recorded ok, rerun failed"} {
		if !strings.Contains(d, want) {
			t.Errorf("differences lack %q:\n%s", want, d)
		}
	}
}

// TestBoardPage: the board's page and markdown after the reveal. The page
// is valid HTML (htmlcheck), has no script, no element or attribute from
// a submitter's name (which holds <script> and an onerror handler: they
// show as text), links each row to its attestation in the log, and shows
// the CIs, the mean ranks and the paired comparisons.
func TestBoardPage(t *testing.T) {
	t.Parallel()
	r := playedRound(t)
	dir := filepath.Join(t.TempDir(), "board")
	if err := os.CopyFS(dir, os.DirFS(r.dir)); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := bench(t, "board", "html", dir); code != 0 {
		t.Fatalf("board html: exit %d\n%s%s", code, out, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, errs := htmlcheck.Page(page)
	for _, err := range errs {
		t.Errorf("the page: %v", err)
	}
	if doc == nil {
		t.Fatal("the page does not parse")
	}
	var text strings.Builder
	var links []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			if n.Data == "script" || n.Data == "img" || n.Data == "iframe" || n.Data == "object" {
				t.Errorf("the page has a <%s> element", n.Data)
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s> has the attribute %s=%q", n.Data, a.Key, a.Val)
				}
				if a.Key == "href" {
					links = append(links, a.Val)
				}
			}
		case html.TextNode:
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	shown := text.String()
	for _, want := range []string{hostile, "Seed commitment", r.seed, "±", "Mean ranks", "Paired comparisons", "cheat-pool", "audit: replication"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
	if len(links) < 2 {
		t.Fatalf("links %v: want one per row", links)
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(dir, l)); err != nil || !strings.HasPrefix(l, "log/entries/") {
			t.Errorf("link %q: not an attestation of the board's log (%v)", l, err)
		}
	}

	md, stderr, code := bench(t, "board", "status", "--markdown", dir)
	if code != 0 {
		t.Fatalf("board status --markdown: exit %d\n%s", code, stderr)
	}
	if strings.Contains(md, "<script>") || strings.Contains(md, "<img") {
		t.Errorf("the markdown holds the submitter's markup raw:\n%s", md)
	}
	if !strings.Contains(md, "[1](log/entries/00000001.json)") {
		t.Errorf("the markdown does not link row 1 to its attestation:\n%s", md)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestSubmitCrash: a submission that is no plugin (it exits at once,
// before any handshake), on a board that does not check conformance
// first, is recorded as failed, with bench run's reason, and its row
// verifies like any other.
func TestSubmitCrash(t *testing.T) {
	t.Parallel()
	needStrict(t)
	dir := filepath.Join(t.TempDir(), "board")
	crash := filepath.Join(t.TempDir(), "bench-plugin-crash")
	if err := os.WriteFile(crash, []byte("#!/bin/sh\necho 'crashed on purpose' >&2\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"board", "init", dir, "--suite", filepath.Join("testdata", "hard.yaml"), "--audit", "2", "--conform=false"},
		{"board", "open", dir},
	} {
		if out, stderr, code := bench(t, args...); code != 0 {
			t.Fatalf("bench %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
	}
	out, stderr, code := bench(t, "board", "submit", dir, "--submitter", "carol", crash)
	if code != 3 || !strings.Contains(out, `("crash" by "carol"): failed: "scenario hard: `) {
		t.Fatalf("a crashing submission: exit %d, want 3 and a failed row\n%s%s", code, out, stderr)
	}
	b, err := board.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.Rows()
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v: want the failed one", rows, err)
	}
	if p := rows[0].Run; p.Outcome != board.OutcomeFailed || p.Reason == "" || p.Scenarios[0].MeanRegret != nil {
		t.Errorf("the row: outcome %s, reason %q, mean regret %v; want failed with a reason and no score", p.Outcome, p.Reason, p.Scenarios[0].MeanRegret)
	}
	if strings.Contains(rows[0].Run.Reason, dir) || !strings.Contains(rows[0].Run.Reason, "runs/0/plugin/bench-plugin-crash") {
		t.Errorf("the reason names the organiser's directory, not the board's runs/0: %s", rows[0].Run.Reason)
	}
	t.Logf("recorded reason: %s", rows[0].Run.Reason)
	if out, _, code := bench(t, "verify", dir); code != 0 {
		t.Errorf("verify: exit %d\n%s", code, out)
	}
}

// TestBoardPageChromium: Debian's headless Chromium loads the board page
// and its DOM holds no script and the hostile submitter's name as text.
func TestBoardPageChromium(t *testing.T) {
	t.Parallel()
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no %s (Debian's chromium): %v", chromium, err)
	}
	r := playedRound(t)
	dir := filepath.Join(t.TempDir(), "board")
	if err := os.CopyFS(dir, os.DirFS(r.dir)); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := bench(t, "board", "html", dir); code != 0 {
		t.Fatalf("board html: exit %d\n%s%s", code, out, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+filepath.Join(dir, "index.html"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("chromium did not exit within %v (waited for it to dump the page's DOM)", deadline)
	}
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	doc, err := html.Parse(bytes.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "img") {
			t.Errorf("the loaded page has a <%s> element", n.Data)
		}
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !strings.Contains(text.String(), hostile) || !strings.Contains(text.String(), "Standings") {
		t.Errorf("the loaded page does not show the submitter's name as text:\n%s", dom)
	}
}

// TestLadder: the Ladder shows a submitter's score only when it beats
// the best shown so far by more than the margin, rounded to it.
func TestLadder(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name     string
		scores   []float64
		margin   float64
		shown    []float64
		improved []bool
	}{
		{"first is shown", []float64{10.26}, 0.5, []float64{10.5}, []bool{true}},
		{"a same score is not shown", []float64{10, 10}, 0.5, []float64{10, 10}, []bool{true, false}},
		{"within the margin is not shown", []float64{10, 9.6}, 0.5, []float64{10, 10}, []bool{true, false}},
		{"beyond it is", []float64{10, 9.4, 9.3, 8}, 0.5, []float64{10, 9.5, 9.5, 8}, []bool{true, true, false, true}},
		{"worse is not shown", []float64{10, 12}, 0.5, []float64{10, 10}, []bool{true, false}},
		{"no margin: any better", []float64{10, 9.99}, 0, []float64{10, 9.99}, []bool{true, true}},
		{"a failed run shows nothing new", []float64{nan, 10}, 1, []float64{math.Inf(1), 10}, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shown, improved := board.Ladder(tt.scores, tt.margin)
			if fmt.Sprint(shown) != fmt.Sprint(tt.shown) || fmt.Sprint(improved) != fmt.Sprint(tt.improved) {
				t.Errorf("Ladder(%v, %v) = %v, %v; want %v, %v", tt.scores, tt.margin, shown, improved, tt.shown, tt.improved)
			}
		})
	}
}

// TestPublicPrivate: on a board with a public part, the board shows
// during the round only the Ladder's public score (a resubmission no
// better by the margin changes nothing), the log carries no score, and
// after the reveal the private part ranks, each value the mean of the
// results file's private replications.
func TestPublicPrivate(t *testing.T) {
	t.Parallel()
	needStrict(t)
	dir := filepath.Join(t.TempDir(), "board")
	run := func(want int, args ...string) string {
		t.Helper()
		out, stderr, code := bench(t, args...)
		if code != want {
			t.Fatalf("bench %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, stderr)
		}
		return out
	}
	run(0, "board", "init", dir, "--suite", filepath.Join("testdata", "hard.yaml"), "--runs", "8", "--public", "4", "--margin", "0.5", "--audit", "2", "--conform=false")
	run(0, "board", "open", dir)
	ts, ucb := filepath.Join(binDir, "bench-plugin-ts"), filepath.Join(binDir, "bench-plugin-ucb1")
	run(0, "board", "submit", dir, "--submitter", "alice", ts, ts)
	run(0, "board", "submit", dir, "--submitter", "bob", ucb)

	finals := func(path string) []float64 {
		f, err := results.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return f.Policies[0].Final["regret"]
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	alice := finals(filepath.Join(dir, "private", "results", "0", "hard.json"))
	status := run(0, "board", "status", dir)
	shown := fmt.Sprintf("%.2f", math.Round(mean(alice[:4])/0.5)*0.5)
	for _, want := range []string{"PUBLIC SCORE (LADDER)", `"alice"    "ts"    ` + shown + " ", shown + " (not better by the margin)"} {
		if !strings.Contains(status, want) {
			t.Errorf("the public board lacks %q:\n%s", want, status)
		}
	}
	if strings.Contains(status, "HARD") {
		t.Errorf("the public board shows a per-scenario score during the round:\n%s", status)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "log", "entries", "*.json"))
	for _, e := range entries {
		data, _ := os.ReadFile(e)
		var env struct{ Payload string }
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatal(err)
		}
		payload, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(payload, []byte("mean_regret")) {
			t.Errorf("%s: an attestation carries a score, which the public log would show", e)
		}
	}

	run(0, "board", "reveal", dir)
	status = run(0, "board", "status", dir)
	private := fmt.Sprintf("%.2f", mean(alice[4:]))
	if !strings.Contains(status, "HARD (PRIVATE)") || !strings.Contains(status, `"ts"    `+private+" ") {
		t.Errorf("after the reveal, the board does not rank alice's ts by its private part (%s):\n%s", private, status)
	}
	if out := run(0, "verify", dir); strings.Count(out, "verified") != 4 {
		t.Errorf("verify:\n%s", out)
	}
	t.Log(status)
	checkParts(t, dir, alice, finals(filepath.Join(dir, "runs", "2", "results", "hard.json")), status)
}

// checkParts: after the reveal of a board whose first 4 of 8
// replications are public, the final ranking's means and confidence
// intervals and its paired comparisons are over the private part alone,
// and the public part's table over the public part, in the terminal,
// the markdown and the page, each saying which part it is over. ts and
// ucb are the final regrets of submissions 0 (ts) and 2 (ucb1).
func checkParts(t *testing.T, dir string, ts, ucb []float64, status string) {
	t.Helper()
	ci := func(xs []float64) string {
		m, ss := 0.0, 0.0
		for _, x := range xs {
			m += x / float64(len(xs))
		}
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		return fmt.Sprintf("%.2f ± %.2f", m, 1.959963984540054*math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs))))
	}
	delta := func(lo, hi int) string {
		d := 0.0
		for i := lo; i < hi; i++ {
			d += (ts[i] - ucb[i]) / float64(hi-lo)
		}
		return fmt.Sprintf("%+.2f [", d)
	}
	private, public := ci(ts[4:]), ci(ts[:4])
	privDelta, pubDelta, allDelta := delta(4, 8), delta(0, 4), delta(0, 8)
	if private == public || privDelta == pubDelta || privDelta == allDelta {
		t.Fatalf("the parts give the same numbers (private %s, public %s; differences %s, %s, all %s): the test cannot tell them apart", private, public, privDelta, pubDelta, allDelta)
	}
	md, stderr, code := bench(t, "board", "status", "--markdown", dir)
	if code != 0 {
		t.Fatalf("status --markdown: exit %d\n%s", code, stderr)
	}
	if out, stderr, code := bench(t, "board", "html", dir); code != 0 {
		t.Fatalf("board html: exit %d\n%s%s", code, out, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, errs := htmlcheck.Page(page)
	for _, err := range errs {
		t.Errorf("the page: %v", err)
	}
	var text strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	// Each output in its sections: the standings, the public part's
	// table, the paired comparisons.
	for _, o := range []struct {
		name, text, public, pairs, label string
	}{
		{"status", status, "public part's table, over the public part (replications 1–4)", "paired comparisons on hard", "ranked on the private part (replications 5–8 of each scenario)"},
		{"markdown", strings.ReplaceAll(md, `\`, ""), "### The public part", "### Paired comparisons on hard", "Ranked on the private part (replications 5–8 of each scenario)"},
		{"page", text.String(), "Public part", "Paired comparisons", "Ranked on the private part (replications 5–8 of each scenario)"},
	} {
		i, j := strings.Index(o.text, o.public), strings.Index(o.text, o.pairs)
		if i < 0 || j < i {
			t.Errorf("%s: no public part's table (%q) before the paired comparisons (%q):\n%s", o.name, o.public, o.pairs, o.text)
			continue
		}
		standings, pub, pairs := o.text[:i], o.text[i:j], o.text[j:]
		if !strings.Contains(standings, o.label) {
			t.Errorf("%s: the standings do not say they are over the private part (%q):\n%s", o.name, o.label, standings)
		}
		if !strings.Contains(standings, private) || strings.Contains(standings, public) {
			t.Errorf("%s: the standings do not show ts over the private part, %s (and not the public's, %s):\n%s", o.name, private, public, standings)
		}
		if !strings.Contains(pub, public) || strings.Contains(pub, private) {
			t.Errorf("%s: the public part's table does not show ts over the public part, %s (and not the private's, %s):\n%s", o.name, public, private, pub)
		}
		if !strings.Contains(pairs, "over the private part") || !strings.Contains(pairs, privDelta) || strings.Contains(pairs, pubDelta) || strings.Contains(pairs, allDelta) {
			t.Errorf("%s: the paired comparisons do not compare ts with ucb1 over the private part (%s, not the public's %s nor all's %s):\n%s", o.name, privDelta, pubDelta, allDelta, pairs)
		}
	}
}

// TestSubmitConform: a board that checks conformance first (the
// default) runs bench conform --quick on each submission under the
// strict sandbox and records its seed and verdict: the shipped TS passes
// and runs; the cheat that pools its replications fails the batch-split
// rule and the plugin that is none fails the handshake, each recorded
// as failed with the verdict and not run. Each on a board of its own, in
// parallel: the kit takes tens of seconds a plugin.
func TestSubmitConform(t *testing.T) {
	t.Parallel()
	needStrict(t)
	crash := filepath.Join(t.TempDir(), "bench-plugin-crash")
	if err := os.WriteFile(crash, []byte("#!/bin/sh\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		plugin, path string
		fails        string // what the conform failure names; "" when it passes
	}{
		{"ts", filepath.Join(binDir, "bench-plugin-ts"), ""},
		{"cheat-pool", filepath.Join(binDir, "bench-plugin-cheat-pool"), "batch-split/"},
		{"crash", crash, "handshake"},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "board")
			for _, args := range [][]string{
				{"board", "init", dir, "--suite", filepath.Join("testdata", "hard.yaml"), "--audit", "2"},
				{"board", "open", dir},
			} {
				if out, stderr, code := bench(t, args...); code != 0 {
					t.Fatalf("bench %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
				}
			}
			out, stderr, code := bench(t, "board", "submit", dir, "--submitter", "alice", tt.path)
			if want := map[bool]int{true: 0, false: 3}[tt.fails == ""]; code != want {
				t.Fatalf("exit %d, want %d\n%s%s", code, want, out, stderr)
			}
			b, err := board.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := b.Rows()
			if err != nil || len(rows) != 1 {
				t.Fatalf("rows %v, %v: want 1", rows, err)
			}
			p := rows[0].Run
			c := p.Conform
			switch {
			case c == nil || !strings.HasPrefix(c.Seed, "0x"):
				t.Errorf("conform %+v, want one with its seed", c)
			case tt.fails == "":
				if !c.OK || p.Outcome != board.OutcomeOK || len(p.Scenarios) != 1 {
					t.Errorf("conform %+v, outcome %s (%s), %d scenarios run; want it to pass and run", c, p.Outcome, p.Reason, len(p.Scenarios))
				}
			case c.OK || p.Outcome != board.OutcomeFailed || !strings.HasPrefix(p.Reason, "conform: ") || !strings.Contains(p.Reason, tt.fails) || len(p.Scenarios) != 0:
				t.Errorf("conform %+v, outcome %s (%s), %d scenarios run; want a conform failure naming %q, not run", c, p.Outcome, p.Reason, len(p.Scenarios), tt.fails)
			}
			if out, _, code := bench(t, "verify", dir); code != 0 {
				t.Errorf("verify: exit %d\n%s", code, out)
			}
		})
	}
}
