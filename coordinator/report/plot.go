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
		p.X.Tick.Marker = numberTicks{logTicks{}}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = numberTicks{logTicks{}}
	}
	p.Add(plotter.NewGrid())
	return p
}

// logTicks places the ticks of a logarithmic axis: a labelled one at each
// power of ten in range and unlabelled ones at its multiples 2..9, or,
// over more than 8 decades, a labelled tick every ceil(decades/8)
// decades and no others. Its labels are placeholders that numberTicks
// replaces with the value. (plot.LogTicks starts at 10^trunc(log10 min),
// which skips the decade of min when min < 1.)
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	step := math.Max(1, math.Ceil((hi-lo)/8))
	in := func(v float64) bool { return v >= min*(1-1e-12) && v <= max*(1+1e-12) }
	var ts []plot.Tick
	for e := lo; e <= hi; e++ {
		base := math.Pow(10, e)
		if step == 1 {
			for i := 1; i <= 9; i++ {
				if v := float64(i) * base; in(v) {
					tk := plot.Tick{Value: v}
					if i == 1 {
						tk.Label = "1"
					}
					ts = append(ts, tk)
				}
			}
		} else if math.Mod(e-lo, step) == 0 && in(base) {
			ts = append(ts, plot.Tick{Value: base, Label: "1"})
		}
	}
	if step == 1 && hi-lo > 1 && !in(math.Pow(10, lo)) {
		// The decade at the bottom, where a falling curve ends, has no
		// power of ten in range: label its lowest multiple 2, 3 or 5 in
		// range, so that the band the data end in reads as a number.
		base := math.Pow(10, lo)
		for k := range ts {
			if i := math.Round(ts[k].Value / base); ts[k].Value < 10*base && (i == 2 || i == 3 || i == 5) {
				ts[k].Label = "1"
				break
			}
		}
	}
	return ts
}

// numberTicks relabels the labelled ticks of a Ticker with tickLabel and
// drops the ticks outside [min, max] (plot.LogTicks runs on to the next
// power of ten, and the label of such a tick would shrink the data area
// to make room for itself).
type numberTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (t numberTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range t.Ticker.Ticks(min, max) {
		if tk.Value < min-1e-12*math.Abs(min) || tk.Value > max+1e-12*math.Abs(max) {
			continue
		}
		out = append(out, tk)
	}
	// One style per axis: when the largest labelled value takes a k or
	// M suffix, every label from 1e3 up takes the same one (5k, 20k, 35k
	// rather than 5000, 20k, 35k).
	top := 0.0
	for _, tk := range out {
		if tk.Label != "" {
			top = math.Max(top, math.Abs(tk.Value))
		}
	}
	for i, tk := range out {
		if tk.Label == "" {
			continue
		}
		out[i].Label = tickLabel(tk.Value)
		if a := math.Abs(tk.Value); top >= 1e4 && top < 1e9 && a >= 1e3 && a < 1e4 {
			out[i].Label = strconv.FormatFloat(tk.Value/1e3, 'g', 4, 64) + "k"
		}
	}
	for _, tk := range out {
		if tk.Label != "" {
			return out
		}
	}
	// No labelled tick in range (a log axis within one decade): label
	// them all.
	for i := range out {
		out[i].Label = tickLabel(out[i].Value)
	}
	return out
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
// logarithmic y falls back to linear when no value is positive. On a
// logarithmic y, values of a series that are exactly 0 (or negative) are
// not left out silently: they are marked with crosses at the bottom of
// the axis, under a legend entry that says so (see floorMarks).
func linePlot(title, xlabel, ylabel string, logY bool, ss []series) (*plot.Plot, error) {
	logY = logY && anyPositive(ss)
	p := newPlot(title, xlabel, ylabel, false, logY)
	defer func() {
		if logY {
			floorMarks(p, ss)
		}
	}()
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

// floorMarks marks, for each series of the log-y plot p, the points
// whose y is finite and not positive (an optimality gap of exactly 0, a
// feasibility of 0, a gap below 0 at an infeasible point): a cross of the
// series' colour at the bottom of the axis, half the least positive value
// of the plot, for each, and a legend entry naming the series and what
// the crosses stand for. It returns the legend entries it added.
func floorMarks(p *plot.Plot, ss []series) (entries []string) {
	floor := p.Y.Min / 2 // below every value drawn, so no mark covers one
	for i, s := range ss {
		var pts plotter.XYs
		zero, negative := false, false
		for _, q := range s.xys {
			if finite(q.X) && finite(q.Y) && q.Y <= 0 {
				pts = append(pts, plotter.XY{X: q.X, Y: floor})
				zero, negative = zero || q.Y == 0, negative || q.Y < 0
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			continue // only finite points were kept
		}
		sc.Color = plotutil.Color(i)
		sc.Shape = draw.CrossGlyph{}
		sc.Radius = vg.Points(4)
		p.Add(sc)
		what := "exactly 0"
		switch {
		case zero && negative:
			what = "0 or below"
		case negative:
			what = "below 0"
		}
		entry := fmt.Sprintf("%s: %s (off the log axis, marked at its bottom)", s.name, what)
		p.Legend.Add(entry, sc)
		entries = append(entries, entry)
	}
	return entries
}

// titleMargin is the space kept free on each side of a plot's title.
const titleMargin = 0.1 * vg.Inch

// minTitleSize is the smallest font fitTitle shrinks a title to.
const minTitleSize = vg.Length(8) // points

// fitTitle makes p's title fit width: a title wider than width (less
// titleMargin on each side) is broken into lines at its " — "
// separators, then between words; a single word still too wide shrinks
// the font, down to minTitleSize.
func fitTitle(p *plot.Plot, width vg.Length) {
	room := width - 2*titleMargin
	sty := &p.Title.TextStyle
	if p.Title.Text == "" || sty.Width(p.Title.Text) <= room {
		return
	}
	var lines []string
	for _, part := range strings.Split(p.Title.Text, " — ") {
		line := ""
		for _, w := range strings.Fields(part) {
			switch {
			case line == "":
				line = w
			case sty.Width(line+" "+w) <= room:
				line += " " + w
			default:
				lines = append(lines, line)
				line = w
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	p.Title.Text = strings.Join(lines, "\n")
	for sty.Width(p.Title.Text) > room && sty.Font.Size > minTitleSize {
		sty.Font.Size -= vg.Points(0.5)
	}
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
	fitTitle(p, plotWidth)
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
