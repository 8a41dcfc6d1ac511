package run_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
)

// TestRoundsLogRefusals: Plan refuses a rounds log, before launching any
// plugin, on a context-free scenario, with Resume or the sequential gate
// (whose policies it could not hold whole), and on the results file
// itself, each an OptionError of RoundsLog.
func TestRoundsLogRefusals(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "r.csv.gz")
	parse := func(text string) *scenario.Scenario {
		sc, err := scenario.Parse("test.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	free := "name: free\nenvironment: {means: [0.5, 0.4], noise_sd: 1}\nhorizon: 10\nruns: 2\npolicies: [{plugin: a}]\n"
	ctx := "name: ctx\ncontext: {dataset: iris}\nhorizon: 10\nruns: 2\npolicies: [{plugin: a}]\n"
	for _, c := range []struct {
		name, scenario string
		opts           run.Options
		want           string
	}{
		{"context-free", free, run.Options{RoundsLog: log},
			"RoundsLog logs the rounds of a contextual scenario (a context: block), for logged-data evaluation; scenario free has none"},
		{"resume", ctx, run.Options{RoundsLog: log, Resume: true, Out: filepath.Join(dir, "r.json")},
			"RoundsLog with Resume: the policies kept from the earlier run are not played again, so the log could not hold them"},
		{"sequential", ctx, run.Options{RoundsLog: log, Gate: gate.Options{Looks: 3}},
			"RoundsLog with Sequential: the sequential gate stops policies early, in groups of replications of its own; log a fixed run"},
		{"the results file", ctx, run.Options{RoundsLog: log, Out: log},
			"RoundsLog " + log + ": is also the results file: give the log a file of its own (FILE.csv.gz)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			launched := false
			c.opts.Launch = func(context.Context, scenario.Policy) (*engine.Plugin, error) {
				launched = true
				return nil, errors.New("not launched")
			}
			f, err := run.Plan(context.Background(), parse(c.scenario), c.opts)
			var oe *run.OptionError
			if f != nil || !errors.As(err, &oe) || oe.Option != run.OptRoundsLog || err.Error() != c.want || launched {
				t.Errorf("got %v (launched %v), want the OptionError %q before any launch", err, launched, c.want)
			}
		})
	}
}
