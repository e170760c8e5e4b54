package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// scrape reads url's /metrics.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape: %s, content type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape: parse: %v", err)
	}
	return fams
}

// value returns the value of the family's sample whose labels include
// labels (name, value pairs); ok is false when there is none.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for k := 0; k+1 < len(labels); k += 2 {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == labels[k] && l.GetValue() == labels[k+1]
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// same reports whether a scraped value is the bundle's: the same float,
// or NaN for a missing value.
func same(got, want float64) bool {
	return got == want || math.IsNaN(got) && math.IsNaN(want)
}

// TestScrapeMatchesBundle runs the shipped quickstart (2,000 rounds) in
// this process with a live view observing it, scrapes /metrics at the
// row of round 1,000 (from within the run) and after the run, and checks
// the scraped values against the bundle: the row of round 1,000 and the
// final metrics line exactly (counters and gauges alike, the same float),
// the traffic counters against summary.json, the per-agent series
// against summary.json's totals.
func TestScrapeMatchesBundle(t *testing.T) {
	out := t.TempDir()
	s, err := scenarios.LoadWith("../../scenarios/quickstart.yaml", "rounds=2000", "output.dir="+out)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Info{RunID: "qs", Scenario: s.Name, Agents: s.Agents, Rounds: s.Rounds})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	if fams := scrape(t, ts.URL); !has(fams, "consim_run_info") || has(fams, "consim_round") {
		t.Fatalf("before the first row: want the run's info and no row metrics, got %v", names(fams))
	}
	var mid map[string]*dto.MetricFamily
	var midProgress coordinator.Progress
	observe := func(p coordinator.Progress) {
		srv.Observe(p)
		if p.Metrics.Round == 1000 {
			mid, midProgress = scrape(t, ts.URL), p
		}
	}
	sum, err := sim.Run(context.Background(), s, sim.Options{RunID: "qs", Observe: observe})
	srv.End(sum, err)
	if err != nil {
		t.Fatal(err)
	}
	final := scrape(t, ts.URL)

	r, err := report.ReadRun(filepath.Join(out, "qs"))
	if err != nil {
		t.Fatal(err)
	}
	if mid == nil {
		t.Fatal("no row of round 1000 was observed")
	}
	var midRow coordinator.Row
	for _, row := range r.Rows {
		if row.Round == 1000 {
			midRow = row
		}
	}
	last := r.Rows[len(r.Rows)-1]
	for _, tc := range []struct {
		when string
		fams map[string]*dto.MetricFamily
		row  coordinator.Row
	}{{"at round 1000", mid, midRow}, {"after the run", final, last}} {
		for name, want := range map[string]float64{
			"consim_round":                      float64(tc.row.Round),
			"consim_elapsed_seconds":            tc.row.Elapsed.Seconds(),
			"consim_consensus_error":            tc.row.ConsensusErr,
			"consim_consensus_error_relative":   tc.row.ConsensusErrRel,
			"consim_objective":                  tc.row.ObjValue,
			"consim_optimality_gap":             tc.row.OptGap,
			"consim_distance_to_optimum":        tc.row.DistToOpt,
			"consim_feasibility":                tc.row.Feasibility,
			"consim_dual_drift":                 tc.row.DualDrift,
			"consim_gradient_evaluations_total": float64(tc.row.GradEvals),
			"consim_messages_sent_total":        float64(tc.row.Msgs),
			"consim_bytes_sent_total":           float64(tc.row.Bytes),
		} {
			if got, ok := value(tc.fams, name); !ok || !same(got, want) {
				t.Errorf("%s: %s = %v (present %v), want the bundle's %v", tc.when, name, got, ok, want)
			}
		}
		if len(tc.row.Extra) == 0 {
			t.Fatalf("%s: the quickstart's ALM declares measures; the row has none", tc.when)
		}
		for _, e := range tc.row.Extra {
			if got, ok := value(tc.fams, "consim_measure", "name", e.Name); !ok || !same(got, e.Value) {
				t.Errorf("%s: consim_measure{name=%q} = %v (present %v), want %v", tc.when, e.Name, got, ok, e.Value)
			}
		}
	}
	if got, _ := value(mid, "consim_rounds_per_second"); got != midProgress.RoundsPerSec || got <= 0 {
		t.Errorf("at round 1000: rounds/s %v, want %v", got, midProgress.RoundsPerSec)
	}
	if got, _ := value(mid, "consim_run_ended"); got != 0 {
		t.Errorf("at round 1000: consim_run_ended %v, want 0", got)
	}
	// After the run: its end, its row count, the summary's traffic.
	tr := sum.Traffic
	for name, want := range map[string]float64{
		"consim_run_ended":               1,
		"consim_measured_rows_total":     float64(len(r.Rows)),
		"consim_agents":                  8,
		"consim_rounds_planned":          2000,
		"consim_messages_received_total": float64(tr.MsgsRecv),
		"consim_bytes_received_total":    float64(tr.BytesRecv),
		"consim_dropouts_total":          float64(tr.Dropouts),
		"consim_refused_frames_total":    float64(tr.Refused),
	} {
		if got, ok := value(final, name); !ok || got != want {
			t.Errorf("after the run: %s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if got, ok := value(final, "consim_dropped_frames_total", "reason", "late"); !ok || got != float64(tr.Late) {
		t.Errorf("after the run: dropped frames (late) %v (present %v), want %d", got, ok, tr.Late)
	}
	if got, ok := value(final, "consim_run_info", "run_id", "qs", "scenario", "quickstart"); !ok || got != 1 {
		t.Errorf("after the run: consim_run_info{run_id=qs, scenario=quickstart} = %v (present %v)", got, ok)
	}
	// Per agent: 8 agents, their messages sum to the summary's, each at
	// the last round.
	var msgs float64
	for id := range 8 {
		m, ok := value(final, "consim_agent_messages_sent_total", "agent", fmt.Sprint(id))
		round, _ := value(final, "consim_agent_round", "agent", fmt.Sprint(id))
		if !ok || round != 2000 {
			t.Errorf("agent %d: messages %v (present %v), round %v; want round 2000", id, m, ok, round)
		}
		msgs += m
	}
	if msgs != float64(tr.MsgsSent) || msgs != float64(last.Msgs) {
		t.Errorf("agents' messages sum to %v; summary %d, last row %d", msgs, tr.MsgsSent, last.Msgs)
	}
}

func has(fams map[string]*dto.MetricFamily, name string) bool { return fams[name] != nil }

func names(fams map[string]*dto.MetricFamily) []string {
	var ns []string
	for n := range fams {
		if strings.HasPrefix(n, "consim_") {
			ns = append(ns, n)
		}
	}
	return ns
}

// TestNoAgentSeriesAboveBound checks that a run of more than
// coordinator.ProgressAgentsMax agents has no per-agent series.
func TestNoAgentSeriesAboveBound(t *testing.T) {
	srv := New(Info{RunID: "big", Agents: 100000})
	srv.Observe(coordinator.Progress{Msgs: 5}) // Agents nil, as the coordinator sends past the bound
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	fams := scrape(t, ts.URL)
	if has(fams, "consim_agent_round") || has(fams, "consim_agent_messages_sent_total") {
		t.Errorf("per-agent series for a run of 100000 agents: %v", names(fams))
	}
	if got, _ := value(fams, "consim_messages_sent_total"); got != 5 {
		t.Errorf("messages %v, want 5", got)
	}
}

// readEvents reads server-sent events from body until stop returns true.
func readEvents(t *testing.T, body io.Reader, stop func(name, data string) bool) {
	t.Helper()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && name != "":
			if stop(name, data) {
				return
			}
			name, data = "", ""
		}
	}
	t.Fatalf("event stream ended: %v", sc.Err())
}

// TestEvents checks the event stream: a page that connects late gets
// hello, every row so far as metrics.jsonl lines and the summary, then
// the rows as they come, and the end.
func TestEvents(t *testing.T) {
	srv := New(Info{RunID: "ev", Agents: 2, Rounds: 30})
	rows := []coordinator.Row{}
	progress := func(t int) coordinator.Progress {
		p := coordinator.Progress{Rounds: 30, Elapsed: time.Duration(t) * time.Millisecond, Msgs: int64(2 * t), Bytes: int64(16 * t)}
		p.Metrics.Round, p.Metrics.ConsensusErr = t, 1/float64(t+1)
		p.Metrics.OptGap, p.Metrics.DistToOpt = math.NaN(), math.NaN()
		rows = append(rows, p.Row())
		return p
	}
	srv.Observe(progress(0))
	srv.Observe(progress(10))
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var got []string
	var lines []string
	readEvents(t, resp.Body, func(name, data string) bool {
		got = append(got, name)
		if name == "row" {
			lines = append(lines, data)
		}
		if name == "summary" && len(got) == 4 { // the replay is over: send more
			srv.Observe(progress(20))
			srv.Observe(progress(30))
			srv.End(&coordinator.Summary{RunID: "ev", Status: coordinator.StatusOK, Rounds: 30, RoundsPlanned: 30}, nil)
		}
		return name == "end"
	})
	want := "hello row row summary row summary row summary end"
	if strings.Join(got, " ") != want {
		t.Errorf("events %v, want %s", got, want)
	}
	for k, line := range lines {
		b, _ := json.Marshal(rows[k])
		if line != string(b) {
			t.Errorf("row event %d: %s, want the metrics line %s", k, line, b)
		}
	}
	// A page that connects after the end gets the whole run and the end.
	resp2, err := http.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	n := 0
	readEvents(t, resp2.Body, func(name, data string) bool {
		if name == "row" {
			n++
		}
		if name == "end" && !strings.Contains(data, `["status","ok"]`) {
			t.Errorf("end event %s lacks the status", data)
		}
		return name == "end"
	})
	if n != 4 {
		t.Errorf("late page got %d rows, want 4", n)
	}
}

// TestHistoryThinning checks that past MaxHistory the kept rows thin to
// every other one, the first and the step kept.
func TestHistoryThinning(t *testing.T) {
	srv := New(Info{RunID: "long"})
	total := MaxHistory*2 + 10
	for k := range total {
		var p coordinator.Progress
		p.Metrics.Round = k
		srv.Observe(p)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.stride != 4 || len(srv.history) > MaxHistory || len(srv.history) < MaxHistory/2 {
		t.Fatalf("stride %d, %d rows kept of %d", srv.stride, len(srv.history), total)
	}
	for k, line := range srv.history {
		var row coordinator.Row
		if err := row.UnmarshalJSON(line); err != nil {
			t.Fatal(err)
		}
		if row.Round != k*srv.stride {
			t.Fatalf("kept row %d is round %d, want %d", k, row.Round, k*srv.stride)
		}
	}
}

// TestPage checks the page is the live HTML page and needs no network.
func TestPage(t *testing.T) {
	ts := httptest.NewServer(New(Info{RunID: "pg"}).Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	page := string(b)
	for _, want := range []string{"<title>Live: run pg</title>", `"kind":"live"`, `"events":"events"`, "var uPlot="} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script src") || strings.Contains(page, `<link rel="stylesheet"`) {
		t.Error("page loads an asset")
	}
	if resp, err := http.Get(ts.URL + "/nothing"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %v %v, want 404", resp.Status, err)
	}
}

// TestListen checks the address rules: a bare port binds loopback, a
// non-loopback address warns, a bad one is refused naming what is
// allowed, and nothing listens on an empty address.
func TestListen(t *testing.T) {
	for _, tc := range []struct {
		addr, host string
		warn       bool
	}{
		{"0", "127.0.0.1", false},
		{":0", "127.0.0.1", false},
		{"127.0.0.1:0", "127.0.0.1", false},
		{"localhost:0", "127.0.0.1", false},
		{"0.0.0.0:0", "0.0.0.0", true},
	} {
		ln, warning, err := Listen(tc.addr)
		if err != nil {
			t.Errorf("Listen(%q): %v", tc.addr, err)
			continue
		}
		host, _, _ := net.SplitHostPort(ln.Addr().String())
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			host = "0.0.0.0" // [::] where the system binds both
		}
		if tc.addr != "localhost:0" && host != tc.host {
			t.Errorf("Listen(%q) bound %s, want host %s", tc.addr, ln.Addr(), tc.host)
		}
		if (warning != "") != tc.warn {
			t.Errorf("Listen(%q) warning %q, want one: %v", tc.addr, warning, tc.warn)
		}
		ln.Close()
	}
	for _, addr := range []string{"", "70000", "host:port", "127.0.0.1", "x:-1"} {
		if ln, _, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", addr)
		} else if !strings.Contains(err.Error(), "HOST:PORT") {
			t.Errorf("Listen(%q): %v does not say what is allowed", addr, err)
		}
	}
}

// TestStartClose serves on a free loopback port, prints its URL, and
// closes an open event stream with the end event delivered.
func TestStartClose(t *testing.T) {
	srv := New(Info{RunID: "sc"})
	url, warning, err := srv.Start(":0")
	if err != nil || warning != "" || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("Start: %q %q %v", url, warning, err)
	}
	resp, err := http.Get(url + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan []string)
	go func() {
		var got []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				got = append(got, strings.TrimPrefix(sc.Text(), "event: "))
			}
		}
		done <- got
	}()
	srv.End(nil, fmt.Errorf("boom"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := <-done; strings.Join(got, " ") != "hello summary end" {
		t.Errorf("events %v, want hello summary end", got)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("server still answers after Close")
	}
}

// TestDocsListEveryMetric checks that docs/observability.md names every
// metric the view exports.
func TestDocsListEveryMetric(t *testing.T) {
	doc, err := os.ReadFile("../../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"consim_run_info", "consim_agents", "consim_rounds_planned", "consim_run_ended",
		"consim_measured_rows_total", "consim_dropped_frames_total", "consim_measure"}
	for _, s := range rowSeries {
		names = append(names, s.name)
	}
	for _, s := range agentSeries {
		names = append(names, s.name)
	}
	for _, d := range dropReasons {
		names = append(names, d.reason)
	}
	for _, n := range names {
		if !strings.Contains(string(doc), "`"+n) && !strings.Contains(string(doc), " `"+n+"`") {
			t.Errorf("docs/observability.md does not list %s", n)
		}
	}
}
