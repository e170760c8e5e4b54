package report

import (
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot size and formats.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

var plotFormats = []string{"png", "svg"}

// series is one named line of a plot.
type series struct {
	name   string
	xys    plotter.XYs
	dashed bool
}

// newPlot returns a plot with title and axis labels, logarithmic in y
// (and x) when asked; callers must only add positive values on a
// logarithmic axis (see keep).
func newPlot(title, xlabel, ylabel string, logX, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	return p
}

// keep returns the points of xys with finite coordinates, and positive
// ones on the logarithmic axes.
func keep(xys plotter.XYs, logX, logY bool) plotter.XYs {
	var out plotter.XYs
	for _, q := range xys {
		if !finite(q.X) || !finite(q.Y) || logX && q.X <= 0 || logY && q.Y <= 0 {
			continue
		}
		out = append(out, q)
	}
	return out
}

// anyPositive reports whether some series has a finite positive y.
func anyPositive(ss []series) bool {
	for _, s := range ss {
		if len(keep(s.xys, false, true)) > 0 {
			return true
		}
	}
	return false
}

// linePlot draws series as lines (with point markers when short). A
// logarithmic y falls back to linear when no value is positive.
func linePlot(title, xlabel, ylabel string, logY bool, ss []series) (*plot.Plot, error) {
	logY = logY && anyPositive(ss)
	p := newPlot(title, xlabel, ylabel, false, logY)
	for i, s := range ss {
		xys := keep(s.xys, false, logY)
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", s.name, err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
		if len(xys) <= 30 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("plot %s: %w", s.name, err)
			}
			sc.Color = plotutil.Color(i)
			sc.Shape = draw.CircleGlyph{}
			p.Add(sc)
		}
	}
	return p, nil
}

// save writes p as dir/name.png and dir/name.svg and returns the paths.
func save(p *plot.Plot, dir, name string) ([]string, error) {
	var paths []string
	for _, ext := range plotFormats {
		path := filepath.Join(dir, name+"."+ext)
		if err := p.Save(plotWidth, plotHeight, path); err != nil {
			return paths, fmt.Errorf("save plot %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
