package plot

import (
	"math"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// placeLegend puts the legend in a corner of the data area that no curve
// crosses (gonum draws the legend inside the axes, over the data, without
// a background), trying top left, top right, bottom right, bottom left. It
// reports false when every corner is crossed: the caller then draws the
// legend beside the axes.
func placeLegend(p *gonumplot.Plot, curves []curve, logX, logY bool) bool {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	tx := func(v float64) float64 { return v }
	ty := tx
	if logX {
		tx = math.Log
	}
	if logY {
		ty = math.Log
	}
	for _, c := range curves {
		for _, pt := range c {
			x, y := tx(pt.X), ty(pt.Y)
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	if !(xhi > xlo) || !(yhi > ylo) {
		return true
	}
	// The fraction of the data area the legend covers, from its size and
	// the data area's (the figure less about 75pt of axis labels across
	// and 85pt of title and labels down), with a little slack.
	r := p.Legend.Rectangle(draw.Canvas{})
	w := float64(r.Max.X-r.Min.X+vg.Points(14)) / float64(Width-vg.Points(75))
	h := float64(r.Max.Y-r.Min.Y+vg.Points(10)) / float64(Height-vg.Points(85))
	if w > 0.6 || h > 0.8 {
		return false
	}
	corners := []struct{ top, left bool }{{true, true}, {true, false}, {false, false}, {false, true}}
	best, bestN := 0, math.MaxInt
	for i, k := range corners {
		n := 0
		for _, c := range curves {
			for j := range c {
				if j == 0 {
					continue
				}
				// Ten samples per segment, so a steep segment crossing the
				// corner counts even with no checkpoint inside it.
				for s := 0; s <= 10; s++ {
					a := float64(s) / 10
					x := ((1-a)*tx(c[j-1].X) + a*tx(c[j].X) - xlo) / (xhi - xlo)
					y := ((1-a)*ty(c[j-1].Y) + a*ty(c[j].Y) - ylo) / (yhi - ylo)
					inX := (k.left && x <= w) || (!k.left && x >= 1-w)
					inY := (k.top && y >= 1-h) || (!k.top && y <= h)
					if inX && inY {
						n++
					}
				}
			}
		}
		if n < bestN {
			best, bestN = i, n
		}
	}
	p.Legend.Top, p.Legend.Left = corners[best].top, corners[best].left
	p.Legend.XOffs, p.Legend.YOffs = 0, 0
	if p.Legend.Left {
		p.Legend.XOffs = 6
	} else {
		p.Legend.XOffs = -6
	}
	if p.Legend.Top {
		p.Legend.YOffs = -4
	} else {
		p.Legend.YOffs = 4
	}
	return bestN == 0
}
