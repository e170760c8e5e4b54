package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/consim/consim/observe"
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
//	                               mean ± one sample standard deviation
//	                               (cut at the axis bottom where
//	                               mean - std <= 0 on a log axis)
//	rate.{png,svg}                 observed 1 - r (mean over seeds, bars
//	                               min to max) vs the algorithm's predicted 1 - r (no fitted constant)
//	                               (log-log) with the line y = x
func PlotSweep(keys []string, aggs []PointAgg, dir string) ([]string, error) {
	ax := chooseXAxis(keys, aggs)
	p, err := finalErrPlot(ax, aggs)
	if err != nil {
		return nil, err
	}
	paths, err := save(p, dir, "final_consensus_err")
	if err != nil {
		return paths, err
	}
	p, err = ratePlot(aggs, ax)
	if err != nil {
		return paths, err
	}
	out, err := save(p, dir, "rate")
	return append(paths, out...), err
}

// finalErrPlot draws the mean final consensus error of each grid point
// over its ok seeds with bars of one sample standard deviation, the
// mean ± std of aggregate.md's tables. On a logarithmic axis a lower end
// mean - std <= 0 cannot be drawn: such a bar is cut at the bottom of the
// axis and the title says so.
func finalErrPlot(ax xAxis, aggs []PointAgg) (*plot.Plot, error) {
	groups, order := groupPoints(ax, aggs)
	logY := false
	for _, a := range aggs {
		if s := a.Stat("final_consensus_err"); finite(s.Mean) && s.Mean > 0 {
			logY = true
		}
	}
	// floor is the bottom of a logarithmic axis: half the lowest end of
	// a bar that can be drawn.
	floor := math.Inf(1)
	for _, a := range aggs {
		s := a.Stat("final_consensus_err")
		if finite(s.Mean) && s.Mean > 0 {
			floor = math.Min(floor, s.Mean/2)
			if lo := s.Mean - s.Std; lo > 0 {
				floor = math.Min(floor, lo/2)
			}
		}
	}
	title := "final consensus error (1/N) sum_i ||x_i - xbar||^2 over seeds: mean, bars ± 1 std"
	p := newPlot(title, xLabel(ax), "final consensus error [x^2]", false, logY)
	if ax.ticker != nil {
		p.X.Tick.Marker = ax.ticker
	}
	cut := false
	for i, g := range order {
		var mb meanBars
		for _, a := range groups[g] {
			s := a.Stat("final_consensus_err")
			if !finite(s.Mean) || logY && !(s.Mean > 0) {
				continue
			}
			low, high, c := stdBar(s, logY, floor)
			cut = cut || c
			mb.XYs = append(mb.XYs, plotter.XY{X: ax.x(a), Y: s.Mean})
			mb.YErrors = append(mb.YErrors, struct{ Low, High float64 }{low, high})
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
		p.Legend.Add(name+" (mean ± std over seeds)", l, sc)
	}
	if logY && finite(floor) {
		p.Y.Min = floor
	}
	if cut {
		p.Title.Text += " (bars with mean - std <= 0 cut at the axis bottom)"
	}
	return p, nil
}

// stdBar returns the lengths below and above s.Mean of a bar of one
// sample standard deviation (0 when the std is not finite, as with one
// seed). On a logarithmic axis whose bottom is floor, a lower end
// s.Mean - s.Std <= 0 is cut at floor, and cut is true.
func stdBar(s observe.Stats, logY bool, floor float64) (low, high float64, cut bool) {
	std := s.Std
	if !finite(std) {
		std = 0
	}
	if logY && s.Mean-std <= 0 {
		low = s.Mean - floor
		if !(s.Mean-low > 0) { // floor is below Mean's precision: the lowest end above 0
			low = math.Nextafter(s.Mean, 0)
		}
		return low, std, true
	}
	return std, std, false
}

// keyMeanings names the measure of grid keys often swept, for the x axis.
var keyMeanings = map[string]string{
	"graph.p":            "edge presence probability p",
	"agents":             "agents N",
	"faults.loss.rate":   "message loss probability",
	"faults.staleness":   "staleness S (rounds)",
	"rounds":             "rounds T",
	"metrics.every":      "report interval (rounds)",
	"graph.q":            "Erdos-Renyi pair probability q",
	"graph.radius":       "connection radius (unit square)",
	"runtime.workers":    "oracle workers W",
	"problem.noise":      "target noise standard deviation",
	"problem.batch":      "minibatch size b",
	"problem.dim":        "dimension n",
	"problem.init.scale": "standard deviation of x_0's entries",
}

// xLabel is the x axis label of a sweep plot: the key's measure and the
// key, or the key alone when its meaning is not listed.
func xLabel(ax xAxis) string {
	if m, ok := keyMeanings[ax.label]; ok {
		return m + " (" + ax.label + ")"
	}
	return ax.label
}

// ratePlot compares 1 - r observed with 1 - r predicted; only points
// where both are positive can be drawn on its logarithmic axes.
func ratePlot(aggs []PointAgg, ax xAxis) (*plot.Plot, error) {
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
	title := "consensus rate: observed vs predicted, no fitted constant"
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
