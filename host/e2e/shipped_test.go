package e2e_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/scenarios"
)

var updateShipped = flag.Bool("update-shipped", false, "rewrite testdata/shipped.sha256 from this build's results")

// shippedHashes is the SHA-256 of every shipped scenario's results at
// reduced scale, less what legitimately differs between builds
// (comparable): written by the build before the SDK split (issue 18,
// commit a311fa4) with -update-shipped.
const shippedHashes = "testdata/shipped.sha256"

// TestShippedResultsUnchanged: every shipped scenario, played through the
// real plugin processes at reduced scale (3 runs, horizon 120, its own
// seed, policies and feedback), gives per-replication results bit for bit
// those of the reference build. A restructuring that moves any of them is
// a bug; an intended change regenerates the file with -update-shipped and
// says why in its commit.
//
// The hash leaves the audit out (comparable): which replications an audit
// replays is drawn afresh. So the scenarios play with --audit 0, but for
// auditedShipped, played as a user plays it (a contextual scenario is
// audited by default), whose six contextual policies must each pass their
// default audit: the shipped contextual plugins' replications do not
// depend on one another. The audit itself, its defaults and its teeth are
// TestAudit's, TestAuditDefault's and TestContextualSandboxPool's. The
// other audits tripled the cost of the 16 contextual scenarios (each
// replays 3 replications of each of its 6 policies, each in processes of
// its own) and checked nothing the hash sees.
func TestShippedResultsUnchanged(t *testing.T) {
	// Nothing it runs depends on another test (its plugins' results
	// depend on the seed alone): in parallel, as the longest of the
	// serial part of the suite otherwise.
	t.Parallel()
	names, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("shipped scenarios: %v (%d found)", err, len(names))
	}
	if i := sort.SearchStrings(names, auditedShipped+".yaml"); i == len(names) || names[i] != auditedShipped+".yaml" {
		t.Fatalf("%s, the scenario played with its default audit, is not shipped: choose another contextual one", auditedShipped)
	}
	want := readHashes(t)
	var mu sync.Mutex
	got := map[string]string{}
	dir := t.TempDir()
	// A scenario per parallel subtest: the longest test of the package
	// when they ran one after another. The group returns when all have.
	t.Run("scenarios", func(t *testing.T) {
		for _, file := range names {
			name := strings.TrimSuffix(file, ".yaml")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				args := []string{"--scenario", name, "--runs", "3", "--horizon", "120"}
				if name != auditedShipped {
					args = append(args, "--audit", "0")
				}
				out := runTo(t, dir, name+".json", args...)
				if name == auditedShipped {
					checkDefaultAudit(t, out)
				}
				sum := sha256.Sum256([]byte(comparable(t, out)))
				h := hex.EncodeToString(sum[:])
				mu.Lock()
				got[name] = h
				mu.Unlock()
				if *updateShipped {
					return
				}
				switch w, ok := want[name]; {
				case !ok:
					t.Errorf("%s: no reference hash in %s (a new scenario? run with -update-shipped)", name, shippedHashes)
				case w != h:
					t.Errorf("%s: results moved: sha256 %s, want %s", name, h, w)
				}
			})
		}
	})
	for name := range want {
		if _, ok := got[name]; !ok && !*updateShipped {
			t.Errorf("%s: in %s but not shipped", name, shippedHashes)
		}
	}
	if *updateShipped {
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s  %s\n", got[k], k)
		}
		if err := os.WriteFile(shippedHashes, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// auditedShipped is the shipped scenario TestShippedResultsUnchanged plays
// with its default audit: a contextual one, so that every shipped
// contextual policy is audited.
const auditedShipped = "contextual_iris"

// checkDefaultAudit fails unless every policy of the results file at path
// was audited by default (audit.default says why) and passed.
func checkDefaultAudit(t *testing.T, path string) {
	t.Helper()
	f := readResults(t, path)
	if len(f.Policies) == 0 {
		t.Fatalf("%s: no policies", path)
	}
	for _, p := range f.Policies {
		switch a := p.Audit; {
		case a == nil:
			t.Errorf("%s: %s was not audited by default", path, p.Label)
		case a.Default == "" || !a.OK || len(a.Replications) == 0:
			t.Errorf("%s: %s: audit %+v, want a default audit that passed", path, p.Label, a)
		}
	}
}

// readHashes reads shippedHashes: "HEX  NAME" lines, as sha256sum writes.
func readHashes(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.FromSlash(shippedHashes))
	if os.IsNotExist(err) && *updateShipped {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s: bad line %q", shippedHashes, sc.Text())
		}
		m[name] = sum
	}
	return m
}
