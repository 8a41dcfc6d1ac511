package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// TestAudit: a policy that pools what it sees across the replications of
// its batch (cheat-pool) beats Thompson sampling by far, reading nothing
// but the protocol, so no sandbox stops it; --audit replays replications
// alone and fails it, while TS, whose replications are each their own
// bandit problem, passes, and the file records what was replayed.
func TestAudit(t *testing.T) {
	t.Parallel()
	dir := cheatDirOf(t, "ts", "cheat-pool")
	sc := writeFile(t, "pool.yaml", `
name: pool
environment: {means: [0.5, 0.45, 0.4], noise_sd: 1}
horizon: 600
runs: 200
seed: 7
policies: [{plugin: ts, label: TS}, {plugin: cheat-pool, label: Pool}]
`)
	plain := filepath.Join(t.TempDir(), "plain.json")
	// --audit 0: no audit by default either (a sandbox that leaves a
	// channel open turns it on).
	if _, stderr, code := bench(t, "--plugin-dir", dir, "--scenario", sc, "--out", plain, "-q", "--audit", "0"); code != 0 {
		t.Fatalf("without --audit: exit %d\n%s", code, stderr)
	}
	f := readResults(t, plain)
	rts, rpool := finalRegret(t, policyByLabel(f, "TS")), finalRegret(t, policyByLabel(f, "Pool"))
	t.Logf("without --audit: regret TS %.2f, Pool %.2f", rts, rpool)
	if !(rpool < rts/2) {
		t.Fatalf("pooling should win by far without an audit (else this test proves nothing): Pool %.2f, TS %.2f", rpool, rts)
	}
	for _, p := range f.Policies {
		if p.Audit != nil {
			t.Errorf("%s: audited without --audit: %+v", p.Label, p.Audit)
		}
	}

	audited := filepath.Join(t.TempDir(), "audited.json")
	_, stderr, code := bench(t, "--plugin-dir", dir, "--scenario", sc, "--out", audited, "-q", "--audit", "3")
	if code != cli.ExitPolicy {
		for _, p := range readResults(t, audited).Policies {
			t.Logf("%s: %s %+v %s", p.Label, p.Status, p.Audit, p.Error)
		}
		t.Fatalf("with --audit 3: exit %d, want %d\n%s", code, cli.ExitPolicy, stderr)
	}
	f = readResults(t, audited)
	ts, pool := policyByLabel(f, "TS"), policyByLabel(f, "Pool")
	if ts.Status != results.StatusOK || ts.Audit == nil || !ts.Audit.OK || len(ts.Audit.Replications) != 3 {
		t.Errorf("TS: %s, audit %+v; want ok over 3 replications", ts.Status, ts.Audit)
	}
	if pool.Status != results.StatusFailed || pool.Audit == nil || pool.Audit.OK {
		t.Fatalf("Pool: %s, audit %+v; want failed", pool.Status, pool.Audit)
	}
	for _, want := range []string{"audit: replication ", "alone but", "depend on the other replications"} {
		if !strings.Contains(pool.Error, want) {
			t.Errorf("Pool's error lacks %q: %s", want, pool.Error)
		}
	}
	if !strings.Contains(stderr, `policy "Pool" (plugin cheat-pool): audit: replication `) {
		t.Errorf("stderr does not say Pool failed the audit:\n%s", stderr)
	}
}
