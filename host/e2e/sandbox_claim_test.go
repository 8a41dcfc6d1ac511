package e2e_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxClaimUnverified: a results file records the sandbox its
// plugins ran under, but nothing proves it (results are not signed). A
// run made with --sandbox off states "off" plainly (it saw it); its file
// edited to say "strict" is shown as "strict (as recorded, unverified)" by
// bench report (the page's plugin table) and bench gate (in
// each format), never as a plain "strict".
func TestSandboxClaimUnverified(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := writeFile(t, "claim.yaml", `
name: claim
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 20
runs: 4
seed: 1
policies: [{plugin: ts}]
`)
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := bench(t, "--scenario", sc, "--sandbox", "off", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, ", sandbox off\n") {
		t.Errorf("the run's title does not say \"sandbox off\" plainly:\n%s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"sandbox": "off"`)) {
		t.Fatalf("the file does not record sandbox off:\n%s", data)
	}
	edited := filepath.Join(dir, "edited.json")
	if err := os.WriteFile(edited, bytes.ReplaceAll(data, []byte(`"sandbox": "off"`), []byte(`"sandbox": "strict"`)), 0o644); err != nil {
		t.Fatal(err)
	}

	const claim = "strict (as recorded, unverified)"
	page := filepath.Join(dir, "r.html")
	if _, stderr, code := bench(t, "report", edited, "--out", page); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "<td>"+claim+"</td>") {
		t.Errorf("the page's plugin table does not show %q", claim)
	}
	if strings.Contains(strings.ReplaceAll(string(html), claim, ""), "strict") {
		t.Errorf("the page shows \"strict\" without \"(as recorded, unverified)\"")
	}
	for _, format := range []string{"table", "markdown", "json"} {
		stdout, stderr, code := bench(t, "gate", edited, edited, "--format", format)
		if code != 0 {
			t.Fatalf("gate --format %s: exit %d\n%s", format, code, stderr)
		}
		want := "sandbox: baseline " + claim + "; current " + claim
		if format == "json" {
			want = `"sandbox": {
    "baseline": "` + claim + `",
    "current": "` + claim + `"`
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("gate --format %s lacks %q:\n%s", format, want, stdout)
		}
		if strings.Contains(strings.ReplaceAll(stdout, claim, ""), "strict") {
			t.Errorf("gate --format %s shows \"strict\" without \"(as recorded, unverified)\":\n%s", format, stdout)
		}
	}
	// The one-call gate: the run just made states its own level plainly,
	// the baseline read back its recorded one.
	stdout, stderr, code = bench(t, "--scenario", sc, "--sandbox", "off", "--baseline", edited)
	if code != 0 {
		t.Fatalf("run --baseline: exit %d\n%s", code, stderr)
	}
	if want := "sandbox: baseline " + claim + "; current off\n"; !strings.Contains(stdout, want) {
		t.Errorf("run --baseline lacks %q:\n%s", want, stdout)
	}
}
