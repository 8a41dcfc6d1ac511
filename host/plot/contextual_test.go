package plot_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/report/reporttest"
)

// TestContextualFigures: a contextual run's figures are its regret, its
// progressive-validation loss and the distribution of its final regret:
// no underestimation or separated figure, whose metrics it does not
// compute. The pv_loss figure names every policy that ran, and its y
// label says what the loss is; with LogX its t axis is logarithmic, as
// the regret figure's is.
func TestContextualFigures(t *testing.T) {
	f := reporttest.Contextual("wine", 6, 100, reporttest.ContextualPolicies...)
	for _, logX := range []bool{false, true} {
		dir := t.TempDir()
		paths, err := plot.WriteWith(f, dir, plot.Options{LogX: logX}, "svg")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range paths {
			names = append(names, filepath.Base(p))
		}
		if want := []string{"wine_regret.svg", "wine_pv_loss.svg", "wine_regret_distribution.svg"}; !slices.Equal(names, want) {
			t.Fatalf("figures %v, want %v", names, want)
		}
		var words []string
		for _, tx := range texts(t, filepath.Join(dir, "wine_pv_loss.svg")) {
			words = append(words, tx.Text)
		}
		all := strings.Join(words, "\n")
		for _, want := range []string{"LinUCB", "Greedy", "Uniform", "progressive-validation loss", "pv_loss (mean of 1 - reward so far)", "round t"} {
			if !strings.Contains(all, want) {
				t.Errorf("logX %v: the pv_loss figure lacks %q; its text:\n%s", logX, want, all)
			}
		}
		if strings.Contains(all, "Broken") {
			t.Errorf("the failed policy is in the pv_loss figure")
		}
	}
	figs, err := plot.Figures(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, fig := range figs {
		if fig.Name == metric.PVLoss && (fig.LogY || fig.Metric != metric.PVLoss) {
			t.Errorf("pv_loss figure: log y %v, metric %q", fig.LogY, fig.Metric)
		}
	}
}
