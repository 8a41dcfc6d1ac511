package plot

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/regretbench/regretbench/host/internal/markupsafe"
)

// MeanRanks draws the mean rank of each policy across experiments (a
// critical-difference figure, after Demšar 2006), named "mean_ranks": one
// row per policy, the best (lowest mean rank) at the top, a dot at its
// mean rank and a bar of half the critical difference cd either side, so
// that two policies differ significantly (Nemenyi) exactly when their bars
// do not overlap; a dashed line marks the best mean rank plus cd, beyond
// which a policy is significantly worse than the best. labels and ranks
// are in the same order; title heads the figure. Colours are those of
// NewStyles(labels).
func MeanRanks(labels []string, ranks []float64, cd float64, title string) Figure {
	k := len(labels)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ranks[a] < ranks[b]:
			return -1
		case ranks[a] > ranks[b]:
			return 1
		}
		return 0
	})
	st := NewStyles(labels)
	p := gonumplot.New()
	p.Title.Text = markupsafe.Line(title)
	p.Title.TextStyle.Font.Size = titleSize
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = "mean rank (1 = lowest in an experiment)"
	p.X.Label.TextStyle.Font.Size = labelSize
	p.X.Tick.Label.Font.Size = tickSize
	p.X.Tick.Marker = ticks{linearTicks{}}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal = draw.LineStyle{}
	p.Add(g)
	names := make([]string, k)
	for row, i := range order {
		y := float64(k - 1 - row)
		names[k-1-row] = fmt.Sprintf("%s  %.2f", markupsafe.Line(labels[i]), ranks[i])
		s := st[labels[i]]
		if l, err := plotter.NewLine(plotter.XYs{{X: ranks[i] - cd/2, Y: y}, {X: ranks[i] + cd/2, Y: y}}); err == nil {
			l.Color, l.Width = s.Color, vg.Points(3)
			p.Add(l)
		}
		if sc, err := plotter.NewScatter(plotter.XYs{{X: ranks[i], Y: y}}); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
	}
	if k > 0 {
		best := ranks[order[0]]
		if l, err := plotter.NewLine(plotter.XYs{{X: best + cd, Y: -0.5}, {X: best + cd, Y: float64(k) - 0.5}}); err == nil {
			l.Color, l.Width, l.Dashes = color.Gray{Y: 90}, vg.Points(1), dashes[1]
			p.Add(l)
		}
		p.NominalY(names...)
		p.Y.Tick.Label.Font.Size = legendSize
	}
	p.Y.Min, p.Y.Max = -0.6, float64(k)-0.4
	// The axis spans the ranks, 1 to k, and no more: a bar or the dashed
	// line past either end is cut there (a CD too large to separate any
	// pair is said in a note, not shown by an axis wider than the ranks).
	p.X.Min, p.X.Max = 1, float64(max(k, 2))
	fig := Figure{Name: "mean_ranks", Plot: p}
	fig.Notes = []string{fmt.Sprintf("Bars: ± CD/2 = %.2f: policies whose bars do not overlap differ significantly. Dashed: best + CD.", cd/2)}
	fig.height = vg.Points(float64(k*boxRow) + 120)
	return fig
}

// WriteFigure writes fig into dir as name.FORMAT in each format
// (DefaultFormats when none) and returns the paths written.
func WriteFigure(fig Figure, dir, name string, formats ...string) ([]string, error) {
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	var paths []string
	for _, format := range formats {
		path := filepath.Join(dir, fileSafe(name)+"."+format)
		if err := save(fig, path, format); err != nil {
			return paths, fmt.Errorf("figure %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
