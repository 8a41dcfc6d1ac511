package e2e_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

// sealedArgs is a small run of the shipped quick scenario (TS and KL-UCB,
// real plugin processes).
var sealedArgs = []string{"--scenario", "quick", "--runs", "12", "--horizon", "300"}

// secretRE matches a secret seed in full.
var secretRE = regexp.MustCompile(`0x[0-9a-f]{64}`)

// seedOf reads the scenario seed of a results file.
func seedOf(t *testing.T, path string) seed.Seed {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f.Scenario.Seed
}

// finals is every policy's per-replication final values of a results
// file: two runs with unrelated rewards do not agree on all of them.
func finals(t *testing.T, path string) []map[string][]float64 {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string][]float64
	for _, p := range f.Policies {
		out = append(out, p.Final)
	}
	return out
}

// writeSeedFile writes s to a file of mode 0600 in a fresh directory.
func writeSeedFile(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "seed")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSeedRandomReproduces: --seed random draws a secret, which the run
// does not show before it ends (stderr says only that the seed is
// secret) and records at the end: as the string 0x + 64 hex digits in the
// results file, with the keyed streams, and in the tables' title. Given
// back with --seed 0x..., or in a --seed-file, it reproduces the run bit
// for bit; another draw gives other results.
func TestSeedRandomReproduces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := filepath.Join(dir, "first.json")
	// --audit 0: the replays below are not audited (a sealed run is by default).
	stdout, stderr, code := bench(t, append(sealedArgs, "--seed", "random", "--audit", "0", "--out", first)...)
	if code != 0 {
		t.Fatalf("--seed random: exit %d\n%s", code, stderr)
	}
	s := seedOf(t, first)
	if !s.Secret() {
		t.Fatalf("--seed random recorded seed %v, want a secret", s)
	}
	if !strings.Contains(stderr, "seed: secret (shown after the run)") || secretRE.MatchString(stderr) {
		t.Errorf("stderr of a sealed run should say the seed is secret and not show it:\n%s", stderr)
	}
	// The title goes on with the sandbox the plugins ran under.
	if want := "quick: K=2, T=300, 12 runs, seed " + s.String(); !strings.HasPrefix(stdout, want+"\n") && !strings.HasPrefix(stdout, want+", ") {
		t.Errorf("the tables' title is not %q:\n%s", want, stdout)
	}
	raw := readDoc(t, first)
	if got := jsonAt(raw, "scenario", "seed"); got != s.String() {
		t.Errorf("scenario.seed is %#v, want the string %s", got, s)
	}
	if got := jsonAt(raw, "scenario", "streams"); got != "hmac-sha256-v1" {
		t.Errorf("scenario.streams is %v, want hmac-sha256-v1", got)
	}

	again := runTo(t, dir, "again.json", append(sealedArgs, "--seed", s.String())...)
	if canonicalFile(t, again) != canonicalFile(t, first) {
		t.Error("--seed 0x... does not reproduce the --seed random run")
	}
	fromFile := runTo(t, dir, "file.json", append(sealedArgs, "--seed-file", writeSeedFile(t, s.String()+"\n"))...)
	if canonicalFile(t, fromFile) != canonicalFile(t, first) {
		t.Error("--seed-file with the secret does not reproduce the --seed random run")
	}
	other := runTo(t, dir, "other.json", append(sealedArgs, "--seed", "random")...)
	if o := seedOf(t, other); o == s || reflect.DeepEqual(finals(t, other), finals(t, first)) {
		t.Errorf("two --seed random runs drew the same secret or the same rewards (seeds %s and %s)", s.Abbrev(), o.Abbrev())
	}
}

// TestSeedFlagErrors: every mistake with --seed and --seed-file exits 2
// before anything runs, naming the flag or the file, and never quoting a
// would-be secret.
func TestSeedFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "0x"+strings.Repeat("ab", 32))
	short := "0x" + strings.Repeat("5e", 31) + "c"
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name  string
		args  []string
		want  []string
		usage bool // the usage hint follows
	}{
		{"both flags", []string{"--seed", "1", "--seed-file", good}, []string{"--seed and --seed-file both given"}, true},
		{"63 hex digits", []string{"--seed", short}, []string{"--seed: invalid seed: 0x followed by 63 hex digits; a secret seed has exactly 64"}, false},
		{"short hex", []string{"--seed", "0x2a"}, []string{"--seed: invalid seed: 0x followed by 2 hex digits", "for the integer seed 42, write it in decimal"}, false},
		{"negative", []string{"--seed", "-1"}, []string{`--seed: invalid seed: "-1": negative`}, false},
		{"overflow", []string{"--seed", "18446744073709551616"}, []string{"--seed: invalid seed:", "out of range"}, false},
		{"word", []string{"--seed", "randm"}, []string{`--seed: invalid seed: "randm"`, "(or random, for a secret seed)"}, false},
		{"random shards", []string{"--seed", "random", "--shard", "0/2"}, []string{"--seed random with --shard", "--seed-file"}, true},
		{"random resume", []string{"--seed", "random", "--resume", "--out", filepath.Join(dir, "r.json")}, []string{"--seed random with --resume"}, true},
		{"missing file", []string{"--seed-file", missing}, []string{"--seed-file " + missing + ":", "no such file"}, false},
		{"directory", []string{"--seed-file", dir}, []string{"--seed-file " + dir + ":"}, false},
		{"empty file", []string{"--seed-file", write("empty", "\n")}, []string{"--seed-file " + filepath.Join(dir, "empty") + ": invalid seed: empty"}, false},
		{"63 digits in the file", []string{"--seed-file", write("short", short+"\n")}, []string{"--seed-file " + filepath.Join(dir, "short") + ": invalid seed: 0x followed by 63 hex digits"}, false},
		{"random in the file", []string{"--seed-file", write("random", "random\n")}, []string{"--seed-file " + filepath.Join(dir, "random") + `: holds "random"`}, false},
		{"two seeds in the file", []string{"--seed-file", write("two", "1\n2\n")}, []string{"--seed-file " + filepath.Join(dir, "two") + `: invalid seed: "1\n2": '\n' is not a digit`}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := bench(t, append([]string{"--scenario", "quick", "-q"}, c.args...)...)
			if code != cli.ExitInput {
				t.Fatalf("exit %d, want %d\n%s", code, cli.ExitInput, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if hint := strings.Contains(stderr, "Run 'bench --help' for usage."); hint != c.usage {
				t.Errorf("usage hint %v, want %v:\n%s", hint, c.usage, stderr)
			}
			if strings.Contains(stderr, short[2:40]) {
				t.Errorf("stderr quotes the would-be secret:\n%s", stderr)
			}
		})
	}
}

// TestSeedFileMode: a secret in a seed file that its group or others may
// read draws a warning naming the file and its mode, and is still used; a
// private one, or an integer (no secret), draws none.
func TestSeedFileMode(t *testing.T) {
	t.Parallel()
	secret := "0x" + strings.Repeat("c3", 32)
	for _, c := range []struct {
		name    string
		content string
		mode    os.FileMode
		warn    bool
	}{
		{"private secret", secret, 0o600, false},
		{"owner-only read", secret, 0o400, false},
		{"world-readable secret", secret, 0o644, true},
		{"group-readable secret", secret, 0o640, true},
		{"world-readable integer", "7\n", 0o644, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := writeSeedFile(t, c.content)
			if err := os.Chmod(p, c.mode); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			_, stderr, code := bench(t, "--scenario", "quick", "--runs", "2", "--horizon", "20", "--policy", "TS", "-q", "--seed-file", p, "--out", out)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			want := fmt.Sprintf("bench: warning: --seed-file %s holds a secret seed, but its mode %04o gives its group or others access; chmod 600 %s", p, c.mode, p)
			if got := strings.Contains(stderr, want); got != c.warn {
				t.Errorf("warning %v, want %v:\n%s", got, c.warn, stderr)
			}
			if got, want := seedOf(t, out).String(), strings.TrimSpace(c.content); got != want {
				t.Errorf("the run used seed %s, want %s", got, want)
			}
		})
	}
}

// sealedShardScenario has geometric delays, so that the delay streams of a
// secret seed are sharded and merged too.
const sealedShardScenario = `
name: sealed
environment: {means: [0.7, 0.5, 0.4], noise_sd: 0.5}
horizon: 200
runs: 9
seed: 5
feedback: {delay: {geometric: 3}}
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
`

// TestSealedShardsMerge: the shards of a sealed run, one secret shared
// through a seed file, merge exactly into the unsharded run; shards of
// different secrets are refused, the message telling the secrets apart by
// their first 8 hex digits only.
func TestSealedShardsMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := writeFile(t, "sealed.yaml", sealedShardScenario)
	secretFile := writeSeedFile(t, "0x"+strings.Repeat("0f1e2d3c", 8)+"\n")
	base := []string{"--scenario", sc, "--seed-file", secretFile}
	var parts []string
	for i := range 3 {
		parts = append(parts, runTo(t, dir, fmt.Sprintf("part-%d.json", i), append(base, "--shard", fmt.Sprintf("%d/3", i))...))
	}
	full := runTo(t, dir, "full.json", base...)
	merged := filepath.Join(dir, "merged.json")
	if _, stderr, code := bench(t, append([]string{"merge", "--out", merged}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if canonicalFile(t, merged) != canonicalFile(t, full) {
		t.Fatal("the merged shards of a sealed run differ from the unsharded run")
	}
	if s := seedOf(t, merged); !s.Secret() || s.String() != "0x"+strings.Repeat("0f1e2d3c", 8) {
		t.Errorf("merged seed %v, want the secret of the seed file", s)
	}

	otherFile := writeSeedFile(t, "0x"+strings.Repeat("99887766", 8))
	other := runTo(t, dir, "other-2.json", "--scenario", sc, "--seed-file", otherFile, "--shard", "2/3")
	_, stderr, code := bench(t, "merge", "--out", filepath.Join(dir, "x.json"), parts[0], parts[1], other)
	if code != cli.ExitInput || !strings.Contains(stderr, "scenario.seed: 0x0f1e2d3c… vs 0x99887766…") {
		t.Fatalf("merge of two secrets: exit %d\n%s", code, stderr)
	}
	if secretRE.MatchString(stderr) {
		t.Errorf("the merge error shows a secret in full:\n%s", stderr)
	}
}

// TestSealedResume: --resume continues a run whose scenario file holds a
// secret seed, and a run given its secret with --seed-file, into exactly
// the file a fresh run writes; a file of another secret is refused as
// another run, its secret abbreviated.
func TestSealedResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := "0x" + strings.Repeat("a5", 32)
	inFile := writeFile(t, "sealed.yaml", strings.Replace(sealedShardScenario, "seed: 5", "seed: "+secret, 1))
	otherSecret := []string{"--seed", "0x" + strings.Repeat("5a", 32)}
	for _, c := range []struct {
		name        string
		args, other []string // the sealed run, and the same with another secret
	}{
		{"scenario file", []string{"--scenario", inFile}, append([]string{"--scenario", inFile}, otherSecret...)},
		{"seed file", append(sealedArgs[:len(sealedArgs):len(sealedArgs)], "--seed-file", writeSeedFile(t, secret)), append(sealedArgs[:len(sealedArgs):len(sealedArgs)], otherSecret...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh := runTo(t, dir, c.name+"-fresh.json", c.args...)
			if s := seedOf(t, fresh); s.String() != secret {
				t.Fatalf("seed %v, want %s", s, secret)
			}
			part := runTo(t, dir, c.name+"-part.json", append(c.args, "--policy", "KL-UCB")...)
			_, stderr, code := bench(t, append(c.args, "-q", "--out", part, "--resume")...)
			if code != 0 {
				t.Fatalf("resume: exit %d\n%s", code, stderr)
			}
			if canonicalFile(t, part) != canonicalFile(t, fresh) {
				t.Fatal("the resumed sealed run differs from a fresh one")
			}
			// Another secret: another run.
			_, stderr, code = bench(t, append(c.other, "-q", "--out", part, "--resume")...)
			if code != cli.ExitInput || !strings.Contains(stderr, "holds another run (seed 0xa5a5a5a5…, this run 0x5a5a5a5a…)") {
				t.Fatalf("resume with another secret: exit %d\n%s", code, stderr)
			}
			if secretRE.MatchString(stderr) {
				t.Errorf("the refusal shows a secret in full:\n%s", stderr)
			}
		})
	}
}

// TestSealedGate: bench gate pairs two runs of the same secret (common
// random numbers) and does not pair runs of different secrets, saying
// why; neither verdict shows a secret in full.
func TestSealedGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := "0x" + strings.Repeat("3c", 32)
	args := append(append([]string{}, sealedArgs...), "--seed-file", writeSeedFile(t, secret))
	base := runTo(t, dir, "base.json", args...)
	same := runTo(t, dir, "same.json", args...)
	other := runTo(t, dir, "other.json", append(sealedArgs, "--seed", "0x"+strings.Repeat("c3", 32))...)
	stdout, stderr, code := bench(t, "gate", base, same)
	if code != 0 || !strings.Contains(stdout, "test: PAIRED t-test") || !strings.Contains(stdout, "common random numbers: same scenario, seed 0x3c3c3c3c…") {
		t.Errorf("same secret: exit %d\n%s%s", code, stdout, stderr)
	}
	if secretRE.MatchString(stdout + stderr) {
		t.Errorf("the verdict shows the secret in full:\n%s", stdout)
	}
	stdout, stderr, _ = bench(t, "gate", base, other)
	if !strings.Contains(stdout, "test: UNPAIRED Welch t-test") || !strings.Contains(stdout, "seeds differ (baseline 0x3c3c3c3c…, current 0xc3c3c3c3…)") {
		t.Errorf("other secret:\n%s%s", stdout, stderr)
	}
	if secretRE.MatchString(stdout + stderr) {
		t.Errorf("the verdict shows a secret in full:\n%s", stdout)
	}
}

// plainPolicySeed is the policy seed of the integer seed n, computed as
// any plugin can from the public derivation (design §4): the first 8
// bytes of SHA-256 over the domain tag and n.
func plainPolicySeed(n uint64) uint64 {
	var buf [len("regretbench/policy-seed/v2\x00") + 8]byte
	copy(buf[:], "regretbench/policy-seed/v2\x00")
	binary.LittleEndian.PutUint64(buf[len(buf)-8:], n)
	sum := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(sum[:8])
}

// bruteForce searches the integer seeds 0..limit-1 for the one whose
// policy seed is p, as a hostile plugin would.
func bruteForce(p uint64, limit uint64) (uint64, bool) {
	for n := range limit {
		if plainPolicySeed(n) == p {
			return n, true
		}
	}
	return 0, false
}

// TestSealedPolicySeed: a hostile plugin, given only the policy seed it
// receives (recorded by the spy plugin), hashes the integers 0..10^6 to
// find the scenario seed. Under the integer seed 271828 it finds it (so
// the search has teeth: it could then rebuild the reward streams of any
// means it guesses). Under a secret seed it finds nothing; the same secret
// gives the plugin the same policy seed, another secret another one.
func TestSealedPolicySeed(t *testing.T) {
	t.Parallel()
	dir := faultyPlugins(t)
	sc := writeFile(t, "spy.yaml", `
name: spy
environment: {means: [0.41, 0.73, 0.58], noise_sd: 0.5}
horizon: 5
runs: 2
seed: 1
policies: [{plugin: faulty-spy, label: Spy}]
`)
	received := func(seedArgs ...string) uint64 {
		t.Helper()
		spy := filepath.Join(t.TempDir(), "spy.jsonl")
		if _, stderr, code := benchEnv(t, []string{"FAULTY_SPY_FILE=" + spy}, append([]string{"--plugin-dir", dir, "--sandbox", "off", "--audit", "0", "--scenario", sc, "-q"}, seedArgs...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", seedArgs, code, stderr)
		}
		var open struct{ Seed uint64 }
		if err := json.Unmarshal(decodeJSONLines(t, spy)[0]["open"], &open); err != nil {
			t.Fatal(err)
		}
		return open.Seed
	}
	const limit = 1_000_000
	if n, ok := bruteForce(received("--seed", "271828"), limit); !ok || n != 271828 {
		t.Fatalf("the search does not find the integer seed 271828 (found %d, %v): it has no teeth", n, ok)
	}
	secret := "0x" + strings.Repeat("d00df00d", 8)
	p := received("--seed-file", writeSeedFile(t, secret))
	if n, ok := bruteForce(p, limit); ok {
		t.Fatalf("under a secret seed the policy seed %#x is that of the integer seed %d", p, n)
	}
	if again := received("--seed", secret); again != p {
		t.Errorf("the same secret gave policy seeds %#x and %#x", p, again)
	}
	if other := received("--seed", "0x"+strings.Repeat("d00df00e", 8)); other == p {
		t.Errorf("two secrets gave the same policy seed %#x", p)
	}
}
