package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
)

// ReportHTML is the name of the HTML report in a run bundle or sweep
// directory.
const ReportHTML = "report.html"

// uplotVersion is the version of the vendored charting library (see
// assets/uplot/README.md).
const uplotVersion = "1.6.32"

//go:embed assets/page.html.tmpl assets/charts.js assets/charts.css assets/uplot/uPlot.iife.min.js assets/uplot/uPlot.min.css
var assets embed.FS

// pageTemplate is the one page of the HTML report and of the live view.
var pageTemplate = template.Must(template.New("page.html.tmpl").ParseFS(assets, "assets/page.html.tmpl"))

// page is what pageTemplate renders. Every asset is inlined: the page
// needs no network when it is viewed.
type page struct {
	Title string
	// Note, if set, is shown under the title (an incomplete run's).
	Note string
	// Summary is the run's quantity and value table; Aggregate the
	// sweep's table.
	Summary   [][2]string
	Aggregate *table
	// Params and Meta are summary.json's resolved parameters and meta.
	Params []coordinator.Param
	Meta   [][2]string
	// Scenario is the resolved scenario.yaml, when the directory has one.
	Scenario string
	// Live is set for the live view, whose summary and rows arrive as
	// server-sent events.
	Live bool
	// Data is the chart data, JSON (see chartData).
	Data template.JS
	// Assets.
	UPlotVersion    string
	UPlotJS, Charts template.JS
	UPlotCSS, Style template.CSS
}

// table is an HTML table: a header and rows of cells.
type table struct {
	Header []string
	Rows   [][]string
	Note   string
}

// chartData is the JSON the page's script draws (assets/charts.js).
type chartData struct {
	// Kind is "run", "sweep" or "live".
	Kind string `json:"kind"`
	// Events is the live view's event stream, relative to the page.
	Events string       `json:"events,omitempty"`
	Run    *runSeries   `json:"run,omitempty"`
	Sweep  *sweepSeries `json:"sweep,omitempty"`
}

// runSeries holds the metrics rows of one run by column: Data[c][k] is
// column Columns[c] of row k, null where the row holds no finite value.
type runSeries struct {
	Columns []string `json:"columns"`
	Data    []floats `json:"data"`
}

// sweepSeries holds a sweep's runs by grid point, each on the rounds
// measured in any of the point's runs, with the spread over the runs;
// Means has every point's mean curve on the rounds of all points.
type sweepSeries struct {
	Columns []string     `json:"columns"`
	Points  []sweepPoint `json:"points"`
	Means   *sweepMeans  `json:"means"`
	// Missing names the runs of sweep.csv whose bundle could not be read.
	Missing []string `json:"missing,omitempty"`
}

// sweepPoint is one grid point: its runs' values and, per column and
// round, the mean, min and max over the runs with a finite value there
// (observe.Summarize).
type sweepPoint struct {
	Label  string     `json:"label"`
	Rounds floats     `json:"rounds"`
	Runs   []sweepRun `json:"runs"`
	// Mean, Min and Max are by column, as Columns.
	Mean []floats `json:"mean"`
	Min  []floats `json:"min"`
	Max  []floats `json:"max"`
}

// sweepRun is one run of a grid point, by column, on the point's rounds
// (null where it measured no such round).
type sweepRun struct {
	ID     string   `json:"id"`
	Status string   `json:"status"`
	Data   []floats `json:"data"`
}

// sweepMeans is every point's mean by column, on the rounds of all
// points: Data[p][c][k].
type sweepMeans struct {
	Rounds floats     `json:"rounds"`
	Labels []string   `json:"labels"`
	Data   [][]floats `json:"data"`
}

// floats is a JSON array of numbers, null for NaN and infinities, each in
// the shortest form that parses back to the same float64.
type floats []float64

// MarshalJSON writes fs with null for non-finite values.
func (fs floats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(fs)*8)
	b = append(b, '[')
	for k, v := range fs {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, v)
	}
	return append(b, ']'), nil
}

// appendFloat appends v as JSON, null when it is not finite.
func appendFloat(b []byte, v float64) []byte {
	if !finite(v) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// runColumns returns the column names of r's metrics lines: the fixed
// ones (without msgs and bytes when the rows do not carry them) and the
// algorithm's measures of its first row.
func runColumns(r *Run) (names []string, keep []bool) {
	names = coordinator.Columns()
	keep = make([]bool, len(names))
	for k, n := range names {
		keep[k] = r.HasMsgs || n != "msgs" && n != "bytes"
	}
	if len(r.Rows) > 0 {
		for _, e := range r.Rows[0].Extra {
			names = append(names, e.Name)
			keep = append(keep, true)
		}
	}
	var out []string
	for k, n := range names {
		if keep[k] {
			out = append(out, n)
		}
	}
	return out, keep
}

// seriesOf returns r's rows by column.
func seriesOf(r *Run) *runSeries {
	names, keep := runColumns(r)
	s := &runSeries{Columns: names, Data: make([]floats, len(names))}
	for c := range s.Data {
		s.Data[c] = make(floats, 0, len(r.Rows))
	}
	var vals []float64
	for _, row := range r.Rows {
		vals = row.Values(vals[:0])
		c := 0
		for k, v := range vals {
			if k < len(keep) && !keep[k] {
				continue
			}
			if c < len(s.Data) {
				s.Data[c] = append(s.Data[c], v)
			}
			c++
		}
		for ; c < len(s.Data); c++ { // a row with fewer measures than the first
			s.Data[c] = append(s.Data[c], math.NaN())
		}
	}
	return s
}

// RunHTML writes the HTML report of run r (its summary, its resolved
// parameters and an interactive plot of every column of its metrics
// lines) to w. tol is the tolerance of the summary table, as in
// WriteRunReport.
func RunHTML(w io.Writer, r *Run, tol Tolerance) error {
	st := StatsOf(r, tol.Abs, tol.Rel)
	p := page{
		Title:    "Run " + r.ID(),
		Note:     r.IncompleteNote(),
		Summary:  runTable(r, st),
		Params:   r.Summary.Params,
		Meta:     metaRows(r.Summary.Meta),
		Scenario: readScenario(r.Dir),
	}
	if r.Incomplete {
		p.Title += " (did not finish)"
	}
	p.Summary = append(p.Summary, [2]string{"tolerance rule", tol.String()})
	return render(w, p, chartData{Kind: "run", Run: seriesOf(r)})
}

// LiveHTML writes the page of the live view to w: the charts of the run's
// metrics lines and its summary, both filled from the server-sent events
// at the URL events (relative to the page): "row" events carry one
// metrics line each (as metrics.jsonl holds it), "summary" events a JSON
// array of [quantity, value] pairs, "end" events the same when the run
// has ended.
func LiveHTML(w io.Writer, title, events string) error {
	return render(w, page{Title: title, Live: true}, chartData{Kind: "live", Events: events})
}

// render fills in the assets and the chart data and writes p to w.
func render(w io.Writer, p page, data chartData) error {
	js, err := json.Marshal(data) // escapes <, > and & for the script element
	if err != nil {
		return fmt.Errorf("encode chart data: %w", err)
	}
	p.Data = template.JS(js)
	p.UPlotVersion = uplotVersion
	for _, a := range []struct {
		path string
		set  func(string)
	}{
		{"assets/uplot/uPlot.iife.min.js", func(s string) { p.UPlotJS = template.JS(s) }},
		{"assets/charts.js", func(s string) { p.Charts = template.JS(s) }},
		{"assets/uplot/uPlot.min.css", func(s string) { p.UPlotCSS = template.CSS(s) }},
		{"assets/charts.css", func(s string) { p.Style = template.CSS(s) }},
	} {
		b, err := assets.ReadFile(a.path)
		if err != nil {
			return fmt.Errorf("report asset: %w", err)
		}
		a.set(string(b))
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("render %s: %w", ReportHTML, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// metaRows lists summary.json's meta as sorted key and value pairs.
func metaRows(meta map[string]any) [][2]string {
	var rows [][2]string
	for k, v := range meta {
		b, err := json.Marshal(v)
		s := string(b)
		if err != nil {
			s = fmt.Sprint(v)
		}
		if str, ok := v.(string); ok {
			s = str
		}
		rows = append(rows, [2]string{k, s})
	}
	slices.SortFunc(rows, func(a, b [2]string) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	return rows
}

// readScenario returns dir's scenario.yaml, empty when it has none.
func readScenario(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, coordinator.ScenarioFile))
	if err != nil {
		return ""
	}
	return string(b)
}

// writeRunHTML writes r.Dir/report.html and returns its path.
func writeRunHTML(r *Run, tol Tolerance) (string, error) {
	var b bytes.Buffer
	if err := RunHTML(&b, r, tol); err != nil {
		return "", err
	}
	path := filepath.Join(r.Dir, ReportHTML)
	return path, writeFile(path, b.String())
}

// SweepHTML writes the HTML report of the sweep directory dir, whose
// table is t, to w: the aggregate table, the resolved scenario, and for
// every column of the runs' metrics lines the runs of each grid point
// side by side with their mean and min-max band, and every point's mean
// on one plot. A run whose bundle cannot be read is named on the page and
// left out of the plots.
func SweepHTML(w io.Writer, dir string, t *SweepTable) error {
	aggs := Aggregate(t)
	header, rows := sweepTable(t.Keys, aggs)
	s := &sweepSeries{}
	type loaded struct {
		row SweepRow
		run *Run
	}
	byPoint := make(map[int][]loaded)
	var order []int
	for _, row := range t.Rows {
		r, err := ReadRun(filepath.Join(dir, RunsDir, row.RunID))
		if err != nil {
			s.Missing = append(s.Missing, fmt.Sprintf("%s: %v", row.RunID, err))
			continue
		}
		if _, ok := byPoint[row.Point]; !ok {
			order = append(order, row.Point)
		}
		byPoint[row.Point] = append(byPoint[row.Point], loaded{row, r})
		names, _ := runColumns(r)
		for _, n := range names {
			if !slices.Contains(s.Columns, n) {
				s.Columns = append(s.Columns, n)
			}
		}
	}
	slices.Sort(order)
	for _, p := range order {
		runs := byPoint[p]
		pt := sweepPoint{Label: labelText(runs[0].row.Labels, -1)}
		var series []*runSeries
		for _, l := range runs {
			series = append(series, seriesOf(l.run))
		}
		pt.Rounds = unionRounds(series)
		for k, l := range runs {
			pt.Runs = append(pt.Runs, sweepRun{ID: l.row.RunID, Status: l.run.Summary.Status, Data: align(series[k], s.Columns, pt.Rounds)})
		}
		pt.Mean, pt.Min, pt.Max = spread(pt.Runs, len(s.Columns), len(pt.Rounds))
		if pt.Label == "" {
			pt.Label = fmt.Sprintf("point %d", p)
		}
		s.Points = append(s.Points, pt)
	}
	s.Means = meansOf(s.Points, len(s.Columns))
	p := page{
		Title:     "Sweep " + filepath.Base(dir),
		Aggregate: &table{Header: header, Rows: rows, Note: sweepTableNote},
		Scenario:  readScenario(dir),
	}
	p.Summary = [][2]string{
		{"runs", fmt.Sprint(len(t.Rows))},
		{"grid points", fmt.Sprint(len(aggs))},
		{"grid keys", fmt.Sprint(t.Keys)},
	}
	return render(w, p, chartData{Kind: "sweep", Sweep: s})
}

// unionRounds returns the rounds measured in any of ss, ascending.
func unionRounds(ss []*runSeries) floats {
	var rounds floats
	for _, s := range ss {
		if len(s.Columns) > 0 && s.Columns[0] == "round" {
			rounds = append(rounds, s.Data[0]...)
		}
	}
	slices.Sort(rounds)
	return slices.Compact(rounds)
}

// align returns s's columns named cols on the given rounds, NaN where s
// has no such column or round.
func align(s *runSeries, cols []string, rounds floats) []floats {
	at := make(map[float64]int, len(rounds))
	for k, r := range rounds {
		at[r] = k
	}
	out := make([]floats, len(cols))
	for c, name := range cols {
		out[c] = make(floats, len(rounds))
		for k := range out[c] {
			out[c][k] = math.NaN()
		}
		src := slices.Index(s.Columns, name)
		if src < 0 || len(s.Data) == 0 {
			continue
		}
		for k, r := range s.Data[0] {
			out[c][at[r]] = s.Data[src][k]
		}
	}
	return out
}

// spread returns, by column and round, observe.Summarize's mean, min and
// max over the runs' finite values (NaN where none is).
func spread(runs []sweepRun, ncols, nrounds int) (mean, lo, hi []floats) {
	mean, lo, hi = make([]floats, ncols), make([]floats, ncols), make([]floats, ncols)
	xs := make([]float64, 0, len(runs))
	for c := range ncols {
		mean[c], lo[c], hi[c] = make(floats, nrounds), make(floats, nrounds), make(floats, nrounds)
		for k := range nrounds {
			xs = xs[:0]
			for _, r := range runs {
				xs = append(xs, r.Data[c][k])
			}
			st := observe.Summarize(xs)
			mean[c][k], lo[c][k], hi[c][k] = st.Mean, st.Min, st.Max
		}
	}
	return mean, lo, hi
}

// meansOf puts every point's mean on the rounds of all points.
func meansOf(points []sweepPoint, ncols int) *sweepMeans {
	m := &sweepMeans{}
	for _, p := range points {
		m.Rounds = append(m.Rounds, p.Rounds...)
	}
	slices.Sort(m.Rounds)
	m.Rounds = slices.Compact(m.Rounds)
	for _, p := range points {
		s := &runSeries{Columns: []string{"round"}, Data: []floats{p.Rounds}}
		cols := []string{"round"}
		for c := range ncols {
			name := fmt.Sprint(c)
			s.Columns = append(s.Columns, name)
			s.Data = append(s.Data, p.Mean[c])
			cols = append(cols, name)
		}
		m.Labels = append(m.Labels, p.Label)
		m.Data = append(m.Data, align(s, cols, m.Rounds)[1:])
	}
	return m
}

// writeSweepHTML writes dir/report.html and returns its path.
func writeSweepHTML(dir string, t *SweepTable) (string, error) {
	var b bytes.Buffer
	if err := SweepHTML(&b, dir, t); err != nil {
		return "", err
	}
	path := filepath.Join(dir, ReportHTML)
	return path, writeFile(path, b.String())
}
