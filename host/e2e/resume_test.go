package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// resumeScenario is a two-policy scenario; env and policies are spliced
// into it so that each case of TestResumeReruns changes one thing.
func resumeScenario(t *testing.T, name, env, policies string) string {
	t.Helper()
	return writeFile(t, name+".yaml", `
name: resume
environment: {means: [0.6, 0.5, 0.45], noise_sd: 0.3`+env+`}
horizon: 200
runs: 12
seed: 4
policies:
`+policies)
}

const resumePolicies = `
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
`

// TestResumeReruns: --resume keeps a policy only when it is provably what
// this run would compute. Each case writes a results file with the
// original scenario, changes one thing, resumes into that file, and must
// end with exactly the file a fresh run of the changed scenario writes
// (timings aside), saying on stderr which policies it reran and why.
// Before, every case said "already holds every policy" and kept stale
// numbers, and --at 50 wrote a file with mixed checkpoints and exited 2.
func TestResumeReruns(t *testing.T) {
	skipShort(t, "--resume rerunning the policies a changed scenario invalidates")
	t.Parallel()
	orig := resumeScenario(t, "orig", "", resumePolicies)
	// A plugin directory whose ts is another executable: the same code
	// with bytes appended, so its SHA-256 differs and nothing else.
	otherTS := freshPluginDir(t, "klucb")
	exe, err := os.ReadFile(filepath.Join(binDir, "plugins", "bench-plugin-ts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(otherTS, "bench-plugin-ts"), append(exe, "rebuilt"...), 0o755); err != nil {
		t.Fatal(err)
	}
	// No shipped plugin plays gaussian arms with an unknown noise sd; the
	// test plugin's finisher mode plays any scenario.
	faulty := faultyPlugins(t)
	const finisher = `
  - {plugin: faulty-finisher, label: Fin}
`
	for _, c := range []struct {
		name     string
		orig     string   // the original scenario, when not orig
		scenario string   // the changed scenario
		args     []string // extra flags of the resumed and the fresh run
		rerun    []string // "label: reason" on stderr
		kept     []string // labels not rerun
	}{
		{"params changed", "", resumeScenario(t, "params", "", `
  - {plugin: ts, label: TS, params: {inflation: 4}}
  - {plugin: klucb, label: KL-UCB}
`), nil, []string{`"TS": params were {"inflation":1}, now {"inflation":4}`}, []string{"KL-UCB"}},
		{"a default made explicit is the same policy", "", resumeScenario(t, "explicit", "", `
  - {plugin: ts, label: TS, params: {inflation: 1}}
  - {plugin: klucb, label: KL-UCB}
`), nil, nil, []string{"TS", "KL-UCB"}},
		{"another plugin behind the label", "", resumeScenario(t, "swap", "", `
  - {plugin: klucb, label: TS}
  - {plugin: klucb, label: KL-UCB}
`), nil, []string{`"TS": plugin was ts, now klucb`}, []string{"KL-UCB"}},
		{"another executable of the plugin", "", orig, []string{"--plugin-dir", otherTS},
			[]string{`"TS": plugin ts SHA-256 was`}, []string{"KL-UCB"}},
		{"noise_known changed", resumeScenario(t, "known", "", finisher), resumeScenario(t, "unknown", ", noise_known: false", finisher),
			[]string{"--plugin-dir", faulty}, []string{`"Fin": noise_known was true, now false`}, nil},
		{"--at 50", "", orig, []string{"--at", "50"},
			[]string{`"TS": checkpoints were [`, `"KL-UCB": checkpoints were [`}, nil},
		{"nothing changed", "", orig, nil, nil, []string{"TS", "KL-UCB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			first := []string{"--scenario", orig}
			if c.orig != "" {
				first = append([]string{"--scenario", c.orig}, c.args...)
			}
			runTo(t, dir, "resumed.json", first...)
			fresh := runTo(t, dir, "fresh.json", append([]string{"--scenario", c.scenario}, c.args...)...)
			resumed := filepath.Join(dir, "resumed.json")
			_, stderr, code := bench(t, append([]string{"--scenario", c.scenario, "-q", "--out", resumed, "--resume"}, c.args...)...)
			if code != 0 {
				t.Fatalf("resume: exit %d\n%s", code, stderr)
			}
			for _, w := range c.rerun {
				if !strings.Contains(stderr, "bench: --resume: rerunning "+w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, l := range c.kept {
				if strings.Contains(stderr, "rerunning \""+l+"\"") {
					t.Errorf("%s was rerun:\n%s", l, stderr)
				}
			}
			if len(c.rerun) == 0 && !strings.Contains(stderr, "already holds every policy") {
				t.Errorf("stderr lacks \"already holds every policy\":\n%s", stderr)
			}
			if canonicalFile(t, resumed) != canonicalFile(t, fresh) {
				t.Error("the resumed file differs from a fresh run of the changed scenario")
			}
		})
	}
}

// TestResumeRefusesMixedCheckpoints: resuming one policy at other
// checkpoints would leave the others, which this run does not redo, at the
// old ones: refused with exit 2, the file untouched.
func TestResumeRefusesMixedCheckpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := resumeScenario(t, "orig", "", resumePolicies)
	out := runTo(t, dir, "r.json", "--scenario", sc)
	before, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := bench(t, "--scenario", sc, "-q", "--out", out, "--resume", "--policy", "KL-UCB", "--at", "50")
	if code != cli.ExitInput || !strings.Contains(stderr, `holds policy "TS", which this run does not run, from another setting (checkpoints were [`) {
		t.Errorf("exit %d, want 2 naming TS and its checkpoints\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("the refused resume changed the file")
	}
}
