package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator"
)

// crash turns the complete bundle fabricateRun wrote in dir into the
// bundle of a run killed while writing: scenario.yaml written, no
// summary.json, and tail appended to metrics.jsonl in place of its last
// line (50 rows at rounds 10..500; 49 remain, through round 490). In
// tail, LAST stands for the last line, WHOLE for it without its newline,
// HALF for its first half.
func crash(t *testing.T, dir string, tail string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, coordinator.ScenarioFile), []byte("name: fab\nagents: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, coordinator.SummaryFile)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, coordinator.MetricsJSONFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) != 51 || len(lines[50]) != 0 {
		t.Fatalf("fabricated metrics.jsonl has %d newline-ended lines, want 50", len(lines)-1)
	}
	last := lines[49]
	kept := bytes.Join(lines[:49], nil)
	tail = strings.ReplaceAll(tail, "WHOLE", string(last[:len(last)-1]))
	tail = strings.ReplaceAll(tail, "HALF", string(last[:len(last)/2]))
	tail = strings.ReplaceAll(tail, "LAST", string(last))
	if err := os.WriteFile(path, append(kept, tail...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadRunIncomplete reads bundles without summary.json cut in
// different ways: only trailing damage is skipped, and counted.
func TestReadRunIncomplete(t *testing.T) {
	tests := []struct {
		name      string
		tail      string
		rows      int
		skipped   int
		wantError string
	}{
		{"last line cut mid-line", "HALF", 49, 1, ""},
		{"every line complete", "LAST", 50, 0, ""},
		{"last line without its newline", "WHOLE", 49, 1, ""},
		{"nothing after the last newline", "", 49, 0, ""},
		{"unparsable complete last line", "HALF\n", 49, 1, ""},
		{"unparsable line then a cut one", "HALF\nHALF", 49, 2, ""},
		{"cut line then blank lines", "HALF\n\n\n", 49, 1, ""},
		{"unparsable line before a row", "HALF\nLAST", 0, 0, "metrics.jsonl:50: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fabricateRun(t, dir, true)
			crash(t, dir, tc.tail)
			if k, err := Detect(dir); k != KindIncompleteRun || err != nil {
				t.Fatalf("Detect = %v, %v; want KindIncompleteRun", k, err)
			}
			r, err := ReadRun(dir)
			if tc.wantError != "" {
				if err == nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("ReadRun error %v; want one matching ErrBadInput with %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !r.Incomplete || len(r.Rows) != tc.rows || r.Skipped != tc.skipped || r.MetricsFile != coordinator.MetricsJSONFile {
				t.Errorf("incomplete %v, %d rows, %d skipped, from %s; want true, %d, %d, %s",
					r.Incomplete, len(r.Rows), r.Skipped, r.MetricsFile, tc.rows, tc.skipped, coordinator.MetricsJSONFile)
			}
			if want := 10 * tc.rows; r.LastRound() != want || r.ID() != filepath.Base(dir) {
				t.Errorf("last round %d, id %q; want %d, %q", r.LastRound(), r.ID(), want, filepath.Base(dir))
			}
		})
	}
}

// TestReadRunCompleteStaysStrict: with summary.json present a line that
// does not parse is still an error, even the last one.
func TestReadRunCompleteStaysStrict(t *testing.T) {
	dir := t.TempDir()
	fabricateRun(t, dir, true)
	f, err := os.OpenFile(filepath.Join(dir, coordinator.MetricsJSONFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"round": 51`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := ReadRun(dir)
	if err == nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "metrics.jsonl:51") {
		t.Fatalf("ReadRun of a complete bundle with a cut last line: %v; want an error at metrics.jsonl:51", err)
	}
	if r != nil {
		t.Errorf("ReadRun returned a run with its error")
	}
}

// TestReportIncompleteRun reports a crashed run's bundle: the same plots
// as for a complete run, and a report.md that starts by saying the run
// did not finish and invents nothing only the summary holds.
func TestReportIncompleteRun(t *testing.T) {
	dir := t.TempDir()
	fabricateRun(t, dir, true)
	crash(t, dir, "HALF")
	paths, err := Report(dir, Tolerance{Abs: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, paths, []string{"plots/consensus.png", "plots/consensus.svg", "plots/optgap_feasibility.png", "plots/optgap_feasibility.svg",
		"plots/consensus_vs_msgs.png", "plots/consensus_vs_msgs.svg", "plots/optgap_feasibility_vs_msgs.png", "plots/optgap_feasibility_vs_msgs.svg",
		"report.md", "report.html"})
	md, err := os.ReadFile(filepath.Join(dir, ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(md), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "did not finish") ||
		!strings.Contains(lines[2], "Incomplete run bundle: the run did not finish (no summary.json: status unknown, last round recorded 490, 1 incomplete trailing line of metrics.jsonl skipped)") {
		t.Errorf("report.md does not start by saying the run did not finish:\n%s", md)
	}
	for _, s := range []string{
		"| status | unknown (run did not finish) |",
		"| stop cause | unknown (run did not finish) |",
		"| agents | unknown (run did not finish) |",
		"| rounds | unknown (run did not finish); last round recorded 490 |",
		"| wall s | unknown (run did not finish); 0.490 at the last recorded round |",
		"| messages | unknown (run did not finish); 3920 through the last recorded round |",
		"| dropouts | unknown (run did not finish) |",
		"| rounds to tolerance | 300 |",
		"| consensus rate per round | 0.990000 |",
		"![consensus_vs_msgs](plots/consensus_vs_msgs.png)",
	} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q:\n%s", s, md)
		}
	}
	if strings.Contains(string(md), "| status | ok") {
		t.Errorf("report.md claims a status:\n%s", md)
	}
	svg, err := os.ReadFile(filepath.Join(dir, PlotsDir, "consensus.svg"))
	if err != nil || !bytes.Contains(svg, []byte("(did not finish)")) {
		t.Errorf("consensus.svg title does not say the run did not finish (%v)", err)
	}
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := StatsOf(r, 0.1, 0)
	if st.Status != "" || !math.IsNaN(st.Msgs) || !math.IsNaN(st.Dropouts) || !math.IsNaN(st.WallSeconds) || st.FinalRound != 490 {
		t.Errorf("stats of an incomplete run %+v; want no status, NaN traffic and wall time, final round 490", st)
	}
}

// TestReportIncompleteFromCSV reads a crashed bundle that has only
// metrics.csv, its last record cut.
func TestReportIncompleteFromCSV(t *testing.T) {
	dir := t.TempDir()
	fabricateRun(t, dir, true)
	crash(t, dir, "LAST")
	jsonl := filepath.Join(dir, coordinator.MetricsJSONFile)
	want, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	cols := coordinator.Columns()
	w.Write(cols)
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]*json.Number
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		rec := make([]string, len(cols))
		for k, c := range cols {
			if v := m[c]; v != nil {
				rec[k] = v.String()
			}
		}
		w.Write(rec)
	}
	w.Flush()
	csvData := buf.Bytes()
	// Cut the last record mid-line.
	cut := bytes.LastIndexByte(csvData[:len(csvData)-1], '\n') + 10
	if err := os.WriteFile(filepath.Join(dir, coordinator.MetricsCSVFile), csvData[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(jsonl); err != nil {
		t.Fatal(err)
	}
	if k, err := Detect(dir); k != KindIncompleteRun || err != nil {
		t.Fatalf("Detect = %v, %v; want KindIncompleteRun", k, err)
	}
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.MetricsFile != coordinator.MetricsCSVFile || len(r.Rows) != 49 || r.Skipped != 1 || !r.HasMsgs {
		t.Fatalf("from %s: %d rows, %d skipped, msgs %v; want %s, 49, 1, true", r.MetricsFile, len(r.Rows), r.Skipped, r.HasMsgs, coordinator.MetricsCSVFile)
	}
	for k, row := range r.Rows {
		w := want.Rows[k]
		if row.Round != w.Round || row.ConsensusErr != w.ConsensusErr || row.Msgs != w.Msgs || row.Elapsed != w.Elapsed || !math.IsNaN(row.DistToOpt) {
			t.Errorf("csv row %d = %+v, want %+v", k, row, w)
		}
	}
	if _, err := Report(dir, Tolerance{Abs: 0.1}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportMD))
	if !strings.Contains(string(md), "last round recorded 490, 1 incomplete trailing line of metrics.csv skipped") {
		t.Errorf("report.md:\n%s", md)
	}
}

// TestReportIncompleteNoRows: a run killed before its first row was
// complete still gets a report.md that says so.
func TestReportIncompleteNoRows(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{coordinator.ScenarioFile: "name: x\n", coordinator.MetricsJSONFile: `{"round":0,"cons`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Report(dir, Tolerance{Rel: 1e-3}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportMD))
	if !strings.Contains(string(md), "no summary.json: status unknown, no round recorded, 1 incomplete trailing line of metrics.jsonl skipped") {
		t.Errorf("report.md:\n%s", md)
	}
}

// TestDetectNeither: a directory without summary.json needs both
// scenario.yaml and a metrics file to be a run bundle; the error names
// what was looked for.
func TestDetectNeither(t *testing.T) {
	for _, files := range [][]string{nil, {coordinator.ScenarioFile}, {coordinator.MetricsJSONFile}, {coordinator.MetricsCSVFile, "other.yaml"}} {
		dir := t.TempDir()
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if k, err := Detect(dir); k != KindUnknown || err != nil {
			t.Errorf("Detect with %v = %v, %v; want KindUnknown", files, k, err)
		}
		_, err := Report(dir, Tolerance{})
		if err == nil || !errors.Is(err, ErrBadInput) {
			t.Fatalf("Report with %v: %v; want an error matching ErrBadInput", files, err)
		}
		for _, s := range []string{"neither a run bundle", "summary.json", "scenario.yaml", "metrics.jsonl", "metrics.csv", "sweep.csv"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not name %s", err, s)
			}
		}
	}
}
