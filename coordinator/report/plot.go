package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
// logarithmic axis (see keep). Its tick labels read as numbers (see
// tickLabel); save draws its legend outside the data area.
func newPlot(title, xlabel, ylabel string, logX, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker = numberTicks{plot.DefaultTicks{}}
	p.Y.Tick.Marker = numberTicks{plot.DefaultTicks{}}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = numberTicks{plot.LogTicks{Prec: -1}}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = numberTicks{plot.LogTicks{Prec: -1}}
	}
	p.Add(plotter.NewGrid())
	return p
}

// numberTicks relabels the labelled ticks of a Ticker with tickLabel.
type numberTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (t numberTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = tickLabel(ts[i].Value)
		}
	}
	return ts
}

// tickLabel writes a tick value v as a number with at most 4 significant
// digits and no padding zeros: plainly for 1e-3 <= |v| < 1e4 (0.25,
// 5000), with a k or M suffix for 1e4 <= |v| < 1e9 (250k, 2.5M), and as
// mantissa e exponent otherwise (1e-5, 2.5e9); 0 as "0".
func tickLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e-3 && a < 1e4:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case a >= 1e4 && a < 1e6:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	case a >= 1e6 && a < 1e9:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', 3, 64), "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	e, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(e)
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
		if err := saveAs(p, path, ext); err != nil {
			return paths, fmt.Errorf("save plot %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// legendGap is the space between the plot and a legend drawn below it.
const legendGap = 0.15 * vg.Inch

// pixel is one pixel of the PNG figures (vgimg draws at 96 dpi).
const pixel = vg.Inch / 96

// legendBelow returns the height a legend drawn below the plot takes:
// its entries and a legendGap above and below, rounded up to whole
// pixels so that the plot above is drawn exactly as without a legend;
// 0 when it has no entry.
func legendBelow(l *plot.Legend) vg.Length {
	h := l.Rectangle(draw.Canvas{}).Size().Y
	if h <= 0 {
		return 0
	}
	return vg.Length(math.Ceil(float64((h+2*legendGap)/pixel))) * pixel
}

// saveAs writes p to path in format (png or svg), plotWidth wide. Its
// legend goes below the axes, outside the data area, so that no entry
// covers a curve: the figure is plotHeight plus the legend's height.
func saveAs(p *plot.Plot, path, format string) error {
	leg := p.Legend
	lh := legendBelow(&leg)
	c, err := draw.NewFormattedCanvas(plotWidth, plotHeight+lh, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	p.Legend = plot.NewLegend() // no entries: nothing drawn over the data
	p.Draw(draw.Crop(dc, 0, 0, lh, 0))
	p.Legend = leg
	if lh > 0 {
		strip := dc
		strip.Max.Y = dc.Min.Y + lh - legendGap
		strip.Min.Y += legendGap
		strip.Min.X = p.DataCanvas(draw.Crop(dc, 0, 0, lh, 0)).Min.X
		leg.Top, leg.Left = true, true
		leg.Draw(strip)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
