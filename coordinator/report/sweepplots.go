package report

import (
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// xAxis is how grid points are placed along a sweep plot's x axis: by the
// numeric value of one grid key, the others splitting the points into
// series, or by point index when no key is numeric.
type xAxis struct {
	key    int // index of the numeric key; -1 for point index
	label  string
	x      func(a *PointAgg) float64
	group  func(a *PointAgg) string
	ticker plot.Ticker
}

// chooseXAxis takes the first grid key whose every value is a number.
func chooseXAxis(keys []string, aggs []PointAgg) xAxis {
	for k, key := range keys {
		numeric := true
		for _, a := range aggs {
			if _, err := strconv.ParseFloat(a.Labels[k].Value, 64); err != nil {
				numeric = false
				break
			}
		}
		if !numeric {
			continue
		}
		return xAxis{
			key:   k,
			label: key,
			x: func(a *PointAgg) float64 {
				v, _ := strconv.ParseFloat(a.Labels[k].Value, 64)
				return v
			},
			group: func(a *PointAgg) string { return labelText(a.Labels, k) },
		}
	}
	var ticks []plot.Tick
	for i := range aggs {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: labelText(aggs[i].Labels, -1)})
	}
	idx := make(map[int]int, len(aggs))
	for i := range aggs {
		idx[aggs[i].Point] = i
	}
	return xAxis{
		key:    -1,
		label:  "grid point",
		x:      func(a *PointAgg) float64 { return float64(idx[a.Point]) },
		group:  func(*PointAgg) string { return "" },
		ticker: plot.ConstantTicks(ticks),
	}
}

// labelText joins the labels other than skip as "k=v, k=v".
func labelText(ls []Label, skip int) string {
	var parts []string
	for i, l := range ls {
		if i != skip {
			parts = append(parts, l.Key+"="+l.Value)
		}
	}
	return strings.Join(parts, ", ")
}

// meanBars is a series of means with asymmetric error bars.
type meanBars struct {
	plotter.XYs
	plotter.YErrors
}

// PlotSweep draws the plots of a sweep into dir and returns their paths:
//
//	final_consensus_err.{png,svg}  mean final consensus error over seeds
//	                               vs the swept parameter (semilog), bars
//	                               from the least to the largest seed
//	rate.{png,svg}                 observed 1 - r (mean over seeds, bars
//	                               min to max) vs the predicted 1 - c s
//	                               (log-log) with the line y = x
func PlotSweep(keys []string, aggs []PointAgg, c float64, dir string) ([]string, error) {
	ax := chooseXAxis(keys, aggs)
	p, err := finalErrPlot(ax, aggs)
	if err != nil {
		return nil, err
	}
	paths, err := save(p, dir, "final_consensus_err")
	if err != nil {
		return paths, err
	}
	p, err = ratePlot(aggs, c, ax)
	if err != nil {
		return paths, err
	}
	out, err := save(p, dir, "rate")
	return append(paths, out...), err
}

func finalErrPlot(ax xAxis, aggs []PointAgg) (*plot.Plot, error) {
	groups, order := groupPoints(ax, aggs)
	logY := false
	for _, a := range aggs {
		if s := a.Stat("final_consensus_err"); finite(s.Min) && s.Min > 0 {
			logY = true
		}
	}
	p := newPlot("final consensus error over seeds (mean, bars min to max)", ax.label, "final consensus error", false, logY)
	if ax.ticker != nil {
		p.X.Tick.Marker = ax.ticker
	}
	for i, g := range order {
		var mb meanBars
		for _, a := range groups[g] {
			s := a.Stat("final_consensus_err")
			if !finite(s.Mean) || logY && !(s.Min > 0) {
				continue
			}
			mb.XYs = append(mb.XYs, plotter.XY{X: ax.x(a), Y: s.Mean})
			mb.YErrors = append(mb.YErrors, struct{ Low, High float64 }{s.Mean - s.Min, s.Max - s.Mean})
		}
		if len(mb.XYs) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(mb.XYs)
		if err != nil {
			return nil, fmt.Errorf("plot final consensus error: %w", err)
		}
		l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
		sc.Shape = draw.CircleGlyph{}
		bars, err := plotter.NewYErrorBars(mb)
		if err != nil {
			return nil, fmt.Errorf("plot final consensus error: %w", err)
		}
		bars.Color = plotutil.Color(i)
		p.Add(l, sc, bars)
		name := g
		if name == "" {
			name = "final consensus error"
		}
		p.Legend.Add(name, l, sc)
	}
	return p, nil
}

// ratePlot compares 1 - r observed with 1 - r predicted; only points
// where both are positive can be drawn on its logarithmic axes.
func ratePlot(aggs []PointAgg, c float64, ax xAxis) (*plot.Plot, error) {
	var mb meanBars
	var labels []string
	for i := range aggs {
		a := &aggs[i]
		r := a.Stat("rate")
		x, y := 1-a.PredictedRate, 1-r.Mean
		if !finite(x) || !finite(y) || x <= 0 || y <= 0 {
			continue
		}
		low, high := 0.0, 0.0
		if lo := 1 - r.Max; lo > 0 {
			low, high = y-lo, (1-r.Min)-y
		}
		mb.XYs = append(mb.XYs, plotter.XY{X: x, Y: y})
		mb.YErrors = append(mb.YErrors, struct{ Low, High float64 }{low, high})
		labels = append(labels, pointName(ax, a))
	}
	title := fmt.Sprintf("consensus rate: observed vs predicted 1 - c lambda_2(L_p2)/lambda_max(L_1), c = %.3g", c)
	p := newPlot(title, "predicted 1 - r", "observed 1 - r (fitted)", len(mb.XYs) > 0, len(mb.XYs) > 0)
	if len(mb.XYs) == 0 {
		p.Title.Text += " (no positive rates to compare)"
		return p, nil
	}
	sc, err := plotter.NewScatter(mb.XYs)
	if err != nil {
		return nil, fmt.Errorf("plot rate: %w", err)
	}
	sc.Shape = draw.CircleGlyph{}
	sc.Color = plotutil.Color(0)
	bars, err := plotter.NewYErrorBars(mb)
	if err != nil {
		return nil, fmt.Errorf("plot rate: %w", err)
	}
	bars.Color = plotutil.Color(0)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: mb.XYs, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("plot rate: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(8)
		lb.TextStyle[i].XAlign = draw.XLeft
	}
	id := plotter.NewFunction(func(x float64) float64 { return x })
	id.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	id.Color = plotutil.Color(1)
	p.Add(id, bars, sc, lb)
	p.Legend.Add("observed (mean over seeds)", sc)
	p.Legend.Add("y = x", id)
	// The points run from bottom left to top right: keep the legend
	// bottom right, and leave a margin of a factor 1.5 around the data
	// (bars included) so that labels at the edges stay inside.
	p.Legend.Top = false
	xmin, xmax, ymin, ymax := plotter.XYRange(mb.XYs)
	for i, e := range mb.YErrors {
		ymin = min(ymin, mb.XYs[i].Y-e.Low)
		ymax = max(ymax, mb.XYs[i].Y+e.High)
	}
	p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
	p.Y.Min, p.Y.Max = ymin/1.5, ymax*1.5
	return p, nil
}

// pointName is the label of a point: its value of the x-axis key, or all
// its labels.
func pointName(ax xAxis, a *PointAgg) string {
	if ax.key >= 0 && len(a.Labels) == 1 {
		return a.Labels[0].Value
	}
	return labelText(a.Labels, -1)
}

// groupPoints splits the points into the series of ax, in first-seen order.
func groupPoints(ax xAxis, aggs []PointAgg) (map[string][]*PointAgg, []string) {
	groups := make(map[string][]*PointAgg)
	var order []string
	for i := range aggs {
		g := ax.group(&aggs[i])
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], &aggs[i])
	}
	return groups, order
}
