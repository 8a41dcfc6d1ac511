package e2e_test

import (
	"fmt"
	"math"
	"path/filepath"
	stdslices "slices" // this package has a helper of its own named slices
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/metric"
)

// TestReplicationReplays: bench run --replication I, through the shipped
// plugins over go-plugin, plays replication I of every policy with the
// full run's rewards, delays and policy seeds: every final value is bit
// for bit the one replication I has in the full run (the worst
// replication that the full run's distribution names among them), the
// output says which replication it is, and the file records it.
func TestReplicationReplays(t *testing.T) {
	skipShort(t, "--replication through the shipped plugins, against full runs")
	t.Parallel()
	for _, tc := range []struct {
		scenario string
		policies []string
	}{
		{"three_arm", nil},
		{"delayed_two_arm", []string{"ReMax d=100", "TS geo=100", "KL-UCB batch=100"}},
		{"remaxgrad_two_arm", []string{"ReMaxGrad M=3"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			const runs = 10
			dir := t.TempDir()
			args := []string{"--scenario", tc.scenario, "--runs", fmt.Sprint(runs), "--horizon", "300", "-q"}
			for _, p := range tc.policies {
				args = append(args, "--policy", p)
			}
			fullPath := filepath.Join(dir, "full.json")
			if _, stderr, code := bench(t, append(slices(args), "--out", fullPath)...); code != 0 {
				t.Fatalf("full run: exit %d\n%s", code, stderr)
			}
			full := readResults(t, fullPath)
			picks := []uint64{0, runs - 1}
			for _, p := range full.Policies {
				if p.Distribution == nil || p.Distribution.Regret == nil {
					t.Fatalf("%q: the full run records no distribution", p.Label)
				}
				if w := p.Distribution.Regret.Argmax; !stdslices.Contains(picks, w) {
					picks = append(picks, w)
				}
			}
			for _, i := range picks {
				onePath := filepath.Join(dir, fmt.Sprintf("rep-%d.json", i))
				stdout, stderr, code := bench(t, append([]string{"run"}, append(slices(args), "--replication", fmt.Sprint(i), "--out", onePath)...)...)
				if code != 0 {
					t.Fatalf("--replication %d: exit %d\n%s", i, code, stderr)
				}
				if want := fmt.Sprintf("replication %d of %d runs", i, runs); !strings.Contains(stdout, want) {
					t.Errorf("--replication %d: stdout does not say %q:\n%s", i, want, stdout)
				}
				if strings.Contains(stdout, "Distribution of the final regret") {
					t.Errorf("--replication %d: a distribution table of one replication:\n%s", i, stdout)
				}
				one := readResults(t, onePath)
				if !stdslices.Equal(one.Shard.Replications, []uint64{i}) || one.Scenario.Runs != runs {
					t.Errorf("--replication %d: the file records replications %v of %d runs", i, one.Shard.Replications, one.Scenario.Runs)
				}
				if len(one.Policies) != len(full.Policies) {
					t.Fatalf("--replication %d: %d policies, the full run %d", i, len(one.Policies), len(full.Policies))
				}
				for k, q := range one.Policies {
					p := full.Policies[k]
					if q.Label != p.Label || q.Status != "ok" {
						t.Fatalf("--replication %d: policy %d is %q (%s), want %q", i, k, q.Label, q.Status, p.Label)
					}
					for _, m := range metric.Names {
						got, want := q.Final[m], p.Final[m][i]
						if len(got) != 1 || math.Float64bits(got[0]) != math.Float64bits(want) {
							t.Errorf("--replication %d %q: final %s %v, want %v as in the full run", i, q.Label, m, got, want)
						}
					}
					if d := q.Distribution; d == nil || d.Regret.Argmax != i || d.Regret.Max != p.Final["regret"][i] {
						t.Errorf("--replication %d %q: distribution %+v", i, q.Label, d)
					}
				}
			}
		})
	}
}

// TestReplicationRefused: --replication out of range, negative, or with
// a flag whose run it cannot be part of is exit 2 naming the flag, before
// anything runs.
func TestReplicationRefused(t *testing.T) {
	t.Parallel()
	base := []string{"run", "--scenario", "quick", "--runs", "5", "--horizon", "50", "-q"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"beyond the runs", []string{"--replication", "5"}, "--replication 5: scenario quick has 5 runs, replications 0 to 4"},
		{"negative", []string{"--replication", "-1"}, "--replication -1: must be >= 0"},
		{"with --shard", []string{"--replication", "1", "--shard", "0/2"}, "--replication with --shard"},
		{"with --resume", []string{"--replication", "1", "--resume", "--out", filepath.Join(t.TempDir(), "r.json")}, "--replication with --resume"},
		{"with --seed random", []string{"--replication", "1", "--seed", "random"}, "--replication with --seed random"},
		{"with --save-baseline", []string{"--replication", "1", "--save-baseline", filepath.Join(t.TempDir(), "b.json")}, "--replication with --save-baseline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := bench(t, append(slices(base), tc.args...)...)
			if code != cli.ExitInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, cli.ExitInput, tc.want)
			}
		})
	}
}
