package herd

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotTimeline draws what series counts per Bucket over time (such as the requests the PSP
// received), one line per result, as an SVG file at path; label names what it counts. The
// first Bucket, where every first attempt of a herd that starts at time 0 falls, is left off
// the scale so that the rest can be read.
func PlotTimeline(path, title, label string, results []Result, series func(Result) []int) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time since the payments started (s)"
	p.Y.Label.Text = fmt.Sprintf("%s per %v", label, Bucket)
	var lines []any
	top := 0
	for _, r := range results {
		counts := series(r)
		pts := make(plotter.XYs, len(counts))
		for i, n := range counts {
			pts[i] = plotter.XY{X: (time.Duration(i) * Bucket).Seconds(), Y: float64(n)}
			if i > 0 {
				top = max(top, n)
			}
		}
		lines = append(lines, r.Scenario.Strategy.Name, pts)
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	p.Y.Min, p.Y.Max = 0, 1.5*float64(top)
	p.Legend.Top = true
	return p.Save(8*vg.Inch, 4.5*vg.Inch, path)
}

// PlotAgainstPayers draws value(result) against the number of payers, one line per group, as
// an SVG file at path. Each group holds one strategy's results in increasing order of payers.
func PlotAgainstPayers(path, title, label string, groups [][]Result, value func(Result) float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "payers (log scale)"
	p.Y.Label.Text = label
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	var lines []any
	top := 0.0
	for _, rs := range groups {
		pts := make(plotter.XYs, len(rs))
		for i, r := range rs {
			pts[i] = plotter.XY{X: float64(r.Scenario.Payers), Y: value(r)}
			top = max(top, pts[i].Y)
		}
		lines = append(lines, rs[0].Scenario.Strategy.Name, pts)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Y.Min, p.Y.Max = 0, 1.6*top // room for the legend above the lines
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(8*vg.Inch, 4.5*vg.Inch, path)
}

// PlotContention draws the mean calls of the contention model against the number of clients,
// one line per algorithm, as an SVG file at path.
func PlotContention(path string, cells []ContentionCell) error {
	p := plot.New()
	p.Title.Text = "Contention model: writes until every client has updated the row"
	p.X.Label.Text = "contending clients"
	p.Y.Label.Text = "mean calls (writes received)"
	var lines []any
	for _, a := range Algorithms {
		var pts plotter.XYs
		for _, c := range cells {
			if c.Algorithm == a {
				pts = append(pts, plotter.XY{X: float64(c.Clients), Y: c.MeanCalls})
			}
		}
		lines = append(lines, a.String(), pts)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.X.Tick.Marker = plot.ConstantTicks(clientTicks())
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(8*vg.Inch, 4.5*vg.Inch, path)
}

// clientTicks marks every other number of clients of the contention sweep.
func clientTicks() []plot.Tick {
	var ticks []plot.Tick
	for i, n := range ContentionClients {
		t := plot.Tick{Value: float64(n)}
		if i%2 == 0 {
			t.Label = fmt.Sprint(n)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
