package herd

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotTimeline draws the payment requests the PSP received per Bucket over time, one line per
// result, as an SVG file at path.
func PlotTimeline(path, title string, results []Result) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time since the payments started (s)"
	p.Y.Label.Text = fmt.Sprintf("PSP requests per %v", Bucket)
	var lines []any
	for _, r := range results {
		pts := make(plotter.XYs, len(r.PerBucket))
		for i, n := range r.PerBucket {
			pts[i] = plotter.XY{X: (time.Duration(i) * Bucket).Seconds(), Y: float64(n)}
		}
		lines = append(lines, r.Scenario.Strategy.Name, pts)
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	p.Legend.Top = true
	return p.Save(8*vg.Inch, 4.5*vg.Inch, path)
}

// PlotPerPayment draws PSP requests per payment against the number of payers, one line per
// strategy, as an SVG file at path. results holds, for each strategy, its results in
// increasing order of payers.
func PlotPerPayment(path, title string, results [][]Result) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "payers (log scale)"
	p.Y.Label.Text = "PSP requests per payment"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	var lines []any
	for _, rs := range results {
		pts := make(plotter.XYs, len(rs))
		for i, r := range rs {
			pts[i] = plotter.XY{X: float64(r.Scenario.Payers), Y: r.RequestsPerPayment()}
		}
		lines = append(lines, rs[0].Scenario.Strategy.Name, pts)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
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
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(8*vg.Inch, 4.5*vg.Inch, path)
}
