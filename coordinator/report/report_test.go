package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
)

// fabricateRun writes a bundle whose consensus error is e_t = 2 * 0.99^t
// at rounds 10, 20, ..., 500, with 8 t messages sent through round t;
// without withMsgs its rows lack the msgs and bytes columns, as bundles
// written before they existed do.
func fabricateRun(t *testing.T, dir string, withMsgs bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var jsonl bytes.Buffer
	var rows []coordinator.Row
	for r := 10; r <= 500; r += 10 {
		row := coordinator.Row{Metrics: observe.Metrics{
			Round:        r,
			ConsensusErr: 2 * math.Pow(0.99, float64(r)),
			OptGap:       1 / float64(r),
			Feasibility:  math.Pow(0.995, float64(r)),
			DistToOpt:    math.NaN(),
		}, Elapsed: time.Duration(r) * time.Millisecond, Msgs: int64(8 * r), Bytes: int64(64 * r)}
		line, err := row.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !withMsgs {
			row.Msgs, row.Bytes = 0, 0
			line = dropKeys(t, line, "msgs", "bytes")
		}
		jsonl.Write(append(line, '\n'))
		rows = append(rows, row)
	}
	sum := coordinator.Summary{
		RunID: "fab", Status: coordinator.StatusOK, StopCause: coordinator.StopRounds, Agents: 4,
		RoundsPlanned: 500, Rounds: 500, Initial: &rows[0], Final: &rows[len(rows)-1],
		Traffic:     coordinator.TrafficTotals{MsgsSent: 4000, BytesSent: 1 << 20, Dropouts: 7},
		WallSeconds: 0.5,
	}
	data, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{coordinator.SummaryFile: data, coordinator.MetricsJSONFile: jsonl.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// dropKeys returns the JSON object line without keys.
func dropKeys(t *testing.T, line []byte, keys ...string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		delete(m, k)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStatsOfFabricatedRun(t *testing.T) {
	dir := t.TempDir()
	fabricateRun(t, dir, true)
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 50 || r.Summary.RunID != "fab" {
		t.Fatalf("read %d rows of run %q", len(r.Rows), r.Summary.RunID)
	}
	if !r.HasMsgs || r.Rows[0].Msgs != 80 || r.Rows[49].Msgs != 4000 || r.Rows[49].Bytes != 32000 {
		t.Errorf("has msgs %v, msgs %d..%d, final bytes %d; want true, 80..4000, 32000", r.HasMsgs, r.Rows[0].Msgs, r.Rows[49].Msgs, r.Rows[49].Bytes)
	}
	// 2 * 0.99^t <= 0.1 first holds at t >= ln(0.05)/ln(0.99) = 298.07,
	// measured at round 300.
	st := StatsOf(r, 0.1, 1e-3)
	if st.RoundsToTol != 300 || math.Abs(st.Rate-0.99) > 1e-12 || st.Tolerance != 0.1 {
		t.Errorf("abs tolerance: rounds %v, rate %v, tol %v; want 300, 0.99, 0.1", st.RoundsToTol, st.Rate, st.Tolerance)
	}
	if st.FinalRound != 500 || st.Msgs != 4000 || st.Dropouts != 7 || st.FinalConsensusErr != r.Rows[49].ConsensusErr {
		t.Errorf("final values %+v", st)
	}
	// Relative: 0.99^t <= 1e-3 * 0.99^10 needs t >= 10 + 687.3, beyond 500.
	st = StatsOf(r, 0, 1e-3)
	if !math.IsNaN(st.RoundsToTol) || math.Abs(st.Tolerance-2e-3*math.Pow(0.99, 10)) > 1e-15 {
		t.Errorf("rel tolerance: rounds %v, tol %v; want NaN, 2e-3 * 0.99^10", st.RoundsToTol, st.Tolerance)
	}
}

// TestReportRun reports a bundle with the msgs column, which gets plots
// against rounds and against messages, and an older one without it,
// which gets the plots against rounds only.
func TestReportRun(t *testing.T) {
	byRound := []string{"plots/consensus.png", "plots/consensus.svg", "plots/optgap_feasibility.png", "plots/optgap_feasibility.svg"}
	byMsgs := []string{"plots/consensus_vs_msgs.png", "plots/consensus_vs_msgs.svg",
		"plots/optgap_feasibility_vs_msgs.png", "plots/optgap_feasibility_vs_msgs.svg"}
	tests := []struct {
		name     string
		withMsgs bool
		want     []string
	}{
		{"msgs", true, append(append(append([]string{}, byRound...), byMsgs...), "report.md", "report.html")},
		{"older bundle", false, append(append([]string{}, byRound...), "report.md", "report.html")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fabricateRun(t, dir, tc.withMsgs)
			if k, err := Detect(dir); k != KindRun || err != nil {
				t.Fatalf("Detect = %v, %v", k, err)
			}
			paths, err := Report(dir, Tolerance{Abs: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			checkFiles(t, dir, paths, tc.want)
			md, _ := os.ReadFile(filepath.Join(dir, ReportMD))
			for _, s := range []string{"| rounds to tolerance | 300 |", "| consensus rate per round | 0.990000 |", "![consensus](plots/consensus.png)"} {
				if !strings.Contains(string(md), s) {
					t.Errorf("report.md lacks %q:\n%s", s, md)
				}
			}
			for _, name := range []string{"consensus_vs_msgs", "optgap_feasibility_vs_msgs"} {
				link := "![" + name + "](plots/" + name + ".png)"
				if strings.Contains(string(md), link) != tc.withMsgs {
					t.Errorf("report.md has %q: %v, want %v", link, !tc.withMsgs, tc.withMsgs)
				}
			}
			if tc.withMsgs {
				svg, err := os.ReadFile(filepath.Join(dir, PlotsDir, "optgap_feasibility_vs_msgs.svg"))
				if err != nil || !bytes.Contains(svg, []byte("messages sent")) {
					t.Errorf("optgap_feasibility_vs_msgs.svg lacks the x label \"messages sent\" (%v)", err)
				}
			}
			// A second report replaces the first.
			if _, err := Report(dir, Tolerance{Abs: 0.1}); err != nil {
				t.Errorf("second report: %v", err)
			}
		})
	}
}

// checkFiles asserts paths are exactly dir/want, each non-empty, the PNGs
// with the PNG signature.
func checkFiles(t *testing.T, dir string, paths, want []string) {
	t.Helper()
	var got []string
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		got = append(got, filepath.ToSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %d bytes, %v", rel, len(data), err)
			continue
		}
		if filepath.Ext(p) == ".png" && !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s is not a PNG", rel)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wrote %v, want %v", got, want)
	}
}

// fabricateSweep is 2 grid points x 2 seeds, plus one failed run.
func fabricateSweep() *SweepTable {
	row := func(id string, point, rep int, p string, ce, rate float64, status string) SweepRow {
		return SweepRow{
			RunID: id, Point: point, Replica: rep, Labels: []Label{{"graph.p", p}}, Seed: uint64(1 + rep),
			Stats: RunStats{Status: status, FinalRound: 100, FinalConsensusErr: ce, Tolerance: 1e-3,
				RoundsToTol: math.NaN(), Rate: rate, FinalOptGap: 0.5, FinalFeasibility: 0.1,
				Msgs: 100, Bytes: 1000, Dropouts: 3, WallSeconds: 1},
			PredictedRate: map[string]float64{"1": 0.97, "0.5": 0.99}[p] + 0.002*float64(rep),
		}
	}
	rows := []SweepRow{
		row("a", 0, 0, "1", 1e-6, 0.98, coordinator.StatusOK),
		row("b", 0, 1, "1", 3e-6, 0.98, coordinator.StatusOK),
		row("c", 1, 0, "0.5", 1e-4, 0.995, coordinator.StatusOK),
		row("d", 1, 1, "0.5", 3e-4, 0.995, coordinator.StatusOK),
		row("e", 1, 2, "0.5", 5, 2, coordinator.StatusFailed),
	}
	rows[0].Stats.RoundsToTol = 40
	rows[4].Error = "timeout, with a comma"
	return &SweepTable{Keys: []string{"graph.p"}, Rows: rows}
}

func TestSweepCSVRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), SweepCSV)
	tab := fabricateSweep()
	if err := tab.WriteCSV(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSweepCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	// NaN != NaN: compare the printed forms.
	if a, b := fmtRows(tab), fmtRows(back); a != b {
		t.Errorf("round trip\n got %s\nwant %s", b, a)
	}
	if err := tab.WriteCSV(path); err == nil {
		t.Error("WriteCSV overwrote an existing sweep.csv")
	}
}

// fmtRows prints every field of t's rows (NaN prints as NaN).
func fmtRows(t *SweepTable) string {
	var b strings.Builder
	b.WriteString(strings.Join(t.Keys, ",") + "\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%+v\n", r)
	}
	return b.String()
}

func TestAggregate(t *testing.T) {
	aggs := Aggregate(fabricateSweep())
	if len(aggs) != 2 {
		t.Fatalf("%d points, want 2", len(aggs))
	}
	a, b := aggs[0], aggs[1]
	ce := a.Stat("final_consensus_err")
	if a.Runs != 2 || a.OK != 2 || a.Reached != 1 || ce.Mean != 2e-6 || ce.Min != 1e-6 || ce.Max != 3e-6 ||
		math.Abs(ce.Std-math.Sqrt2*1e-6) > 1e-20 {
		t.Errorf("point 0: %+v, consensus %+v", a, ce)
	}
	// The failed run is counted but not aggregated.
	if b.Runs != 3 || b.OK != 2 || math.Abs(b.Stat("final_consensus_err").Mean-2e-4) > 1e-18 {
		t.Errorf("point 1: runs %d ok %d mean %v", b.Runs, b.OK, b.Stat("final_consensus_err").Mean)
	}
	// The predicted rate is the mean of the ok runs' predictions, not
	// fitted to the observed rates (0.98 and 0.995).
	if math.Abs(a.PredictedRate-0.971) > 1e-12 || math.Abs(b.PredictedRate-0.991) > 1e-12 || a.Predicted.N != 2 || b.Predicted.N != 2 {
		t.Errorf("predicted %v (%d runs), %v (%d runs); want 0.971 and 0.991 over 2 runs each", a.PredictedRate, a.Predicted.N, b.PredictedRate, b.Predicted.N)
	}
}

func TestWriteSweepAndReport(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteSweep(dir, fabricateSweep())
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, paths, []string{"sweep.csv", "aggregate.csv", "aggregate.md",
		"plots/final_consensus_err.png", "plots/final_consensus_err.svg", "plots/rate.png", "plots/rate.svg"})
	agg, _ := os.ReadFile(filepath.Join(dir, AggregateCSV))
	lines := strings.Split(strings.TrimSpace(string(agg)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "point,graph.p,runs,ok,reached,final_consensus_err_mean,final_consensus_err_std") ||
		!strings.HasPrefix(lines[1], "0,1,2,2,1,2e-06,") {
		t.Errorf("aggregate.csv:\n%s", agg)
	}
	md, _ := os.ReadFile(filepath.Join(dir, AggregateMD))
	if !strings.Contains(string(md), "| 1 | 2/2 | 2.000e-06 ± 1.414e-06 | [1.000e-06, 3.000e-06] |") {
		t.Errorf("aggregate.md:\n%s", md)
	}
	if k, err := Detect(dir); k != KindSweep || err != nil {
		t.Fatalf("Detect = %v, %v", k, err)
	}
	paths, err = Report(dir, Tolerance{})
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, paths, []string{"plots/final_consensus_err.png", "plots/final_consensus_err.svg", "plots/rate.png", "plots/rate.svg", "report.md", "report.html"})
	if _, err := Report(t.TempDir(), Tolerance{}); err == nil {
		t.Error("Report of an empty directory succeeded")
	}
}
