package report

import (
	"fmt"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// Contextual reports whether f is the results of a contextual scenario
// (docs/contextual.md): its regret is against the best arm for each
// context, it records the progressive-validation loss, and the
// underestimation metrics of the best arm (underestimation, regret_under,
// regret_not_under) are not computed, so no report shows them: their
// recorded values (0, 0 and the regret) would be numbers with a false
// meaning.
func Contextual(f *results.File) bool { return f.Scenario.Context != nil }

// ShownMetrics are the metrics the reports of f show, in report order:
// metric.Names for a context-free run, regret and pv_loss for a
// contextual one (Contextual).
func ShownMetrics(f *results.File) []string {
	if Contextual(f) {
		return []string{metric.Regret, metric.PVLoss}
	}
	return metric.Names[:]
}

// ContextText says what a contextual scenario's contexts are, as the
// title line and the HTML report's facts show it: "dataset wine (178
// rows)", "dataset file data.csv (SHA-256 0123abcd…)", or "model
// linear_gaussian, one context per arm, noise sd 0.1"; "" for a
// context-free one.
func ContextText(f *results.File) string {
	c := f.Scenario.Context
	if c == nil {
		return ""
	}
	var s string
	switch {
	case c.Dataset != "":
		s = "dataset " + c.Dataset
	case c.DatasetFile != "":
		s = "dataset file " + c.DatasetFile
		if h := c.DatasetSHA256; len(h) >= 12 {
			s += " (SHA-256 " + h[:12] + "…)"
		}
	default:
		s = "model " + c.Model
	}
	if c.Rows > 0 && c.Model == "" {
		s += fmt.Sprintf(", %d rows", c.Rows)
	}
	if c.PerArm {
		s += ", one context per arm"
	}
	if c.NoiseSD > 0 {
		s += fmt.Sprintf(", noise sd %g", c.NoiseSD)
	}
	return s
}

// shape is the title's "K=3" of a context-free scenario, and "K=3, d=13
// (dataset wine, 178 rows)" of a contextual one.
func shape(f *results.File) string {
	s := fmt.Sprintf("K=%d", f.Scenario.Arms)
	if c := f.Scenario.Context; c != nil {
		s += fmt.Sprintf(", d=%d (%s)", c.Dim, ContextText(f))
	}
	return s
}
