package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/regretbench/regretbench/host/internal/markupsafe"
)

// boxRow is the height of one policy's row in the distribution figure.
const boxRow = 18

// heavyTail is the ratio of a policy's worst final regret to its median
// from which the distribution figure takes a log axis.
const heavyTail = 10

// distribution draws the final regret of every replication (Final
// ["regret"]), one horizontal box plot per policy, the first policy at
// the top: the box spans the quartiles, the line in it is the median,
// whiskers reach the last values within 1.5 interquartile ranges of the
// box (Tukey's), dots are the replications beyond them, and a cross marks
// the mean. The value axis is logarithmic when every value is positive
// and some policy's worst replication is heavyTail times its median or
// more: a heavy tail, which a linear axis would squash every box under.
func (b *builder) distribution() Figure {
	type row struct {
		label string
		vals  []float64
	}
	var rows []row
	var skipped []string
	allPos := true
	heavy := false
	for _, pol := range b.policies {
		var vals []float64
		for _, v := range pol.Final["regret"] {
			if finite(v) {
				vals = append(vals, math.Max(-maxValue, math.Min(maxValue, v)))
			}
		}
		if len(vals) == 0 {
			skipped = append(skipped, markupsafe.Line(pol.Label))
			continue
		}
		rows = append(rows, row{pol.Label, vals})
		sorted := slices.Sorted(slices.Values(vals))
		if sorted[0] <= 0 {
			allPos = false
		}
		if med := median(sorted); med > 0 && sorted[len(sorted)-1] >= heavyTail*med {
			heavy = true
		}
	}
	logX := allPos && heavy
	scale := "linear axis"
	if logX {
		scale = "log axis: heavy-tailed"
	}
	p := b.newPlot(fmt.Sprintf("%s: final regret per replication (%d runs, %s)", b.name(), b.runs(), scale), "")
	p.X.Label.Text = "final regret at T"
	fig := Figure{Name: "regret_distribution", Plot: p}
	if len(skipped) > 0 {
		fig.Notes = append(fig.Notes, fmt.Sprintf("No finite final regret for %s (not drawn).", joinLabels(skipped)))
	}
	if len(rows) == 0 {
		fig.empty = "No policy has a finite final regret to draw."
		return fig
	}
	fig.Notes = append(fig.Notes, "Box: quartiles; line: median; whiskers: within 1.5 IQR of the box; dots: replications beyond; ×: mean.")
	n := len(rows)
	names := make([]string, n)
	var means plotter.XYs
	for i, r := range rows {
		loc := float64(n - 1 - i) // the first policy at the top
		names[n-1-i] = markupsafe.Line(r.label)
		bp, err := plotter.NewBoxPlot(vg.Points(boxRow*0.6), loc, plotter.Values(r.vals))
		if err != nil {
			panic(err) // only with no values, checked above
		}
		s := b.st[r.label]
		fill := s.Color
		fill.A = 64
		bp.FillColor = fill
		bp.BoxStyle = draw.LineStyle{Color: s.Color, Width: vg.Points(1.5)}
		bp.MedianStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(2)}
		bp.WhiskerStyle = draw.LineStyle{Color: s.Color, Width: vg.Points(1)}
		bp.GlyphStyle = draw.GlyphStyle{Color: s.Color, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
		bp.Horizontal = true
		p.Add(bp)
		mean := 0.0
		for _, v := range r.vals {
			mean += v / float64(len(r.vals))
		}
		means = append(means, plotter.XY{X: mean, Y: loc})
	}
	sc, err := plotter.NewScatter(means)
	if err == nil {
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}
		p.Add(sc)
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = legendSize
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	if logX {
		p.X.Scale = gonumplot.LogScale{}
		p.X.Tick.Marker = ticks{logTicks{}}
	}
	if !settle(&p.X, logX) {
		p.X.Scale = gonumplot.LinearScale{}
		p.X.Tick.Marker = ticks{linearTicks{}}
		settle(&p.X, false)
	}
	// A row per policy, and room for the title, the x axis and the notes.
	fig.height = vg.Points(float64(n*boxRow) + 110 + 14*float64(len(fig.Notes)))
	return fig
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return sorted[n/2-1]/2 + sorted[n/2]/2
}

func joinLabels(ls []string) string {
	out := ""
	for i, l := range ls {
		if i > 0 {
			out += ", "
		}
		out += l
	}
	return out
}
