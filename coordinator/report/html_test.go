package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
)

// embeddedData returns the chart data of the page at path.
func embeddedData(t *testing.T, path string) (page string, data struct {
	Kind string `json:"kind"`
	Run  struct {
		Columns []string     `json:"columns"`
		Data    [][]*float64 `json:"data"`
	} `json:"run"`
	Sweep struct {
		Columns []string `json:"columns"`
		Points  []struct {
			Label  string       `json:"label"`
			Rounds []float64    `json:"rounds"`
			Mean   [][]*float64 `json:"mean"`
			Min    [][]*float64 `json:"min"`
			Max    [][]*float64 `json:"max"`
			Runs   []struct {
				ID   string       `json:"id"`
				Data [][]*float64 `json:"data"`
			} `json:"runs"`
		} `json:"points"`
		Means struct {
			Rounds []float64      `json:"rounds"`
			Labels []string       `json:"labels"`
			Data   [][][]*float64 `json:"data"`
		} `json:"means"`
		Missing []string `json:"missing"`
	} `json:"sweep"`
}) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page = string(b)
	const open = `<script type="application/json" id="consim-data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatalf("%s has no chart data", path)
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	if err := json.Unmarshal([]byte(rest[:j]), &data); err != nil {
		t.Fatalf("chart data: %v", err)
	}
	return page, data
}

// checkSelfContained fails when page loads anything: every script and
// style must be inline.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`<[a-z]+[^>]*\s(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "data:") {
			t.Errorf("report.html loads an asset: %q", m[0])
		}
	}
	for _, re := range []string{`@import`, `url\(\s*['"]?https?:`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("report.html loads an asset: %q", m)
		}
	}
	for _, want := range []string{"uPlot " + uplotVersion, "var uPlot=", ".uplot", "window.consim"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks its inline asset %q", want)
		}
	}
}

// TestRunHTML checks that report.html of a run embeds every column of
// every metrics line exactly (null where the line has none), with its
// assets inline and the summary table.
func TestRunHTML(t *testing.T) {
	dir := t.TempDir()
	fabricateRun(t, dir, true)
	if _, err := Report(dir, Tolerance{Abs: 0.1}); err != nil {
		t.Fatal(err)
	}
	page, data := embeddedData(t, filepath.Join(dir, ReportHTML))
	checkSelfContained(t, page)
	for _, want := range []string{"<th>rounds to tolerance</th><td>300</td>", "<th>dropouts</th><td>7</td>", "<title>Run fab</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if data.Kind != "run" || strings.Join(data.Run.Columns, ",") != strings.Join(coordinator.Columns(), ",") {
		t.Fatalf("kind %q columns %v, want run and %v", data.Kind, data.Run.Columns, coordinator.Columns())
	}
	for k, row := range r.Rows {
		for c, want := range row.Values(nil) {
			got := data.Run.Data[c][k]
			switch {
			case got == nil && finite(want):
				t.Errorf("row %d %s: null, want %v", k, data.Run.Columns[c], want)
			case got != nil && *got != want:
				t.Errorf("row %d %s: %v, want %v", k, data.Run.Columns[c], *got, want)
			}
		}
	}
	if n := len(data.Run.Data[0]); n != len(r.Rows) {
		t.Errorf("%d points, want the %d rows", n, len(r.Rows))
	}
}

// TestRunHTMLOlderBundle leaves out the msgs and bytes columns of a
// bundle whose lines lack them, rather than drawing zeros.
func TestRunHTMLOlderBundle(t *testing.T) {
	dir := t.TempDir()
	fabricateRun(t, dir, false)
	if _, err := Report(dir, Tolerance{Abs: 0.1}); err != nil {
		t.Fatal(err)
	}
	_, data := embeddedData(t, filepath.Join(dir, ReportHTML))
	for _, c := range data.Run.Columns {
		if c == "msgs" || c == "bytes" {
			t.Errorf("columns %v include %s, which the lines lack", data.Run.Columns, c)
		}
	}
}

// writeBundle writes a run bundle at dir whose consensus error is
// scale * 0.9^t at rounds 0, 10, ..., last, with a kkt measure.
func writeBundle(t *testing.T, dir string, scale float64, last int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for r := 0; r <= last; r += 10 {
		row := coordinator.Row{Metrics: observe.Metrics{Round: r, ConsensusErr: scale * math.Pow(0.9, float64(r)),
			OptGap: math.NaN(), DistToOpt: math.NaN(), ObjValue: 1, Feasibility: math.NaN(), ConsensusErrRel: math.NaN(), DualDrift: math.NaN(),
			Extra: []observe.Named{{Name: "kkt", Value: scale}}}, Elapsed: time.Duration(r) * time.Millisecond, Msgs: int64(r), Bytes: int64(8 * r)}
		b, err := row.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
	}
	sum, _ := json.Marshal(coordinator.Summary{RunID: filepath.Base(dir), Status: coordinator.StatusOK})
	for name, b := range map[string][]byte{coordinator.SummaryFile: sum, coordinator.MetricsJSONFile: lines.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSweepHTML checks the sweep page: each grid point's runs on the
// union of their rounds, the mean, min and max over them, every point's
// mean on the rounds of all points, and the run without a bundle named.
func TestSweepHTML(t *testing.T) {
	dir := t.TempDir()
	table := fabricateSweep()
	// Point 0: runs a (to round 30) and b (to round 20, stopped early);
	// point 1: c and d; e failed without a bundle.
	for id, b := range map[string]struct {
		scale float64
		last  int
	}{"a": {1, 30}, "b": {3, 20}, "c": {2, 30}, "d": {4, 30}} {
		writeBundle(t, filepath.Join(dir, RunsDir, id), b.scale, b.last)
	}
	if err := table.WriteCSV(filepath.Join(dir, SweepCSV)); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(dir, Tolerance{}); err != nil {
		t.Fatal(err)
	}
	page, data := embeddedData(t, filepath.Join(dir, ReportHTML))
	checkSelfContained(t, page)
	if !strings.Contains(page, `<table class="grid" id="aggregate-table">`) || !strings.Contains(page, "2.000e-06 ± 1.414e-06") {
		t.Error("report.html lacks the aggregate table")
	}
	sw := data.Sweep
	if data.Kind != "sweep" || len(sw.Points) != 2 || len(sw.Missing) != 1 || !strings.HasPrefix(sw.Missing[0], "e: ") {
		t.Fatalf("kind %q, %d points, missing %v; want sweep, 2 points and e missing", data.Kind, len(sw.Points), sw.Missing)
	}
	ce := -1
	for c, name := range sw.Columns {
		if name == "consensus_err" {
			ce = c
		}
	}
	if ce < 0 || sw.Columns[len(sw.Columns)-1] != "kkt" {
		t.Fatalf("columns %v: want consensus_err and the measure kkt", sw.Columns)
	}
	p0 := sw.Points[0]
	if p0.Label != "graph.p=1" || len(p0.Runs) != 2 || len(p0.Rounds) != 4 {
		t.Fatalf("point 0: %q, %d runs, rounds %v", p0.Label, len(p0.Runs), p0.Rounds)
	}
	for k, r := range p0.Rounds {
		a := math.Pow(0.9, r)
		want := observe.Summarize([]float64{a, 3 * a})
		if r > 20 { // b stopped at round 20
			want = observe.Summarize([]float64{a})
			if p0.Runs[1].Data[ce][k] != nil {
				t.Errorf("run b has a value at round %v, past its last", r)
			}
		}
		if got := p0.Mean[ce][k]; got == nil || *got != want.Mean || *p0.Min[ce][k] != want.Min || *p0.Max[ce][k] != want.Max {
			t.Errorf("point 0 round %v: mean %v min %v max %v, want %+v", r, deref(got), deref(p0.Min[ce][k]), deref(p0.Max[ce][k]), want)
		}
	}
	if len(sw.Means.Data) != 2 || len(sw.Means.Rounds) != 4 || *sw.Means.Data[1][ce][3] != *sw.Points[1].Mean[ce][3] {
		t.Errorf("means: %d points on rounds %v", len(sw.Means.Data), sw.Means.Rounds)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
