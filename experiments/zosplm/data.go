package zosplm

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/problems/qcqp"
)

// trialsHeader and tracesHeader are the columns of trials.csv and of
// traces.csv and convergence.csv.
var (
	trialsHeader = []string{"regime", "n", "k", "method", "trial", "iters_to_eps", "iters", "evals", "cpu_seconds", "cpu_seconds_per_iter"}
	tracesHeader = []string{"regime", "n", "k", "method", "trial", "iter", "objective", "stationarity", "feasibility", "complementarity"}
)

// writeConfig writes the configuration that ReadResult needs to render
// the table again.
func writeConfig(path string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("zosplm: %w", err)
	}
	return experiments.WriteFile(path, bytes.NewReader(append(b, '\n')))
}

// writeZOSPLMTrials writes trials.csv: one row per table run, with
// iters_to_eps -1 for a run censored at the iteration limit and the CPU
// time of its iterations.
func writeZOSPLMTrials(path string, runs []Trial) error {
	rows := make([][]string, 0, len(runs))
	for _, r := range runs {
		t := r.Trace
		rows = append(rows, []string{
			string(r.Regime), strconv.Itoa(r.N), strconv.Itoa(r.K), t.Method, strconv.Itoa(t.Trial),
			strconv.Itoa(t.ItersToEps), strconv.Itoa(t.Iters), strconv.FormatInt(t.Evals, 10),
			experiments.G(t.Seconds), experiments.G(t.SecondsPerIter()),
		})
	}
	return experiments.WriteCSV(path, trialsHeader, rows)
}

// writeZOSPLMTraces writes the measures after every iteration of every
// run.
func writeZOSPLMTraces(path string, runs []Trial) error {
	var rows [][]string
	for _, r := range runs {
		t := r.Trace
		for i, p := range t.Points {
			rows = append(rows, []string{
				string(r.Regime), strconv.Itoa(r.N), strconv.Itoa(r.K), t.Method, strconv.Itoa(t.Trial), strconv.Itoa(i),
				experiments.G(p.Objective), experiments.G(p.Stationarity), experiments.G(p.Feasibility), experiments.G(p.Complementarity),
			})
		}
	}
	return experiments.WriteCSV(path, tracesHeader, rows)
}

// ReadResult reads the config.json, trials.csv and, if present,
// convergence.csv that Write wrote into dir, so that Table renders again
// from the data: the trials' traces hold their counts and times but no
// points, the convergence runs their points (as written, 6 digits).
func ReadResult(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("zosplm: %w", err)
	}
	r := &Result{}
	if err := json.Unmarshal(b, &r.Config); err != nil {
		return nil, fmt.Errorf("zosplm: %s: %w", filepath.Join(dir, "config.json"), err)
	}
	r.Config.Parallel = 1
	rows, err := readCSV(filepath.Join(dir, "trials.csv"), trialsHeader)
	if err != nil {
		return nil, err
	}
	for i, row := range rows {
		tr, err := parseTrialRow(row)
		if err != nil {
			return nil, fmt.Errorf("zosplm: trials.csv row %d: %w", i+2, err)
		}
		r.Trials = append(r.Trials, tr)
	}
	rows, err = readCSV(filepath.Join(dir, "convergence.csv"), tracesHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	for i, row := range rows {
		if err := addTraceRow(&r.Conv, row); err != nil {
			return nil, fmt.Errorf("zosplm: convergence.csv row %d: %w", i+2, err)
		}
	}
	for _, t := range r.Conv {
		t.Trace.Iters = len(t.Trace.Points) - 1
		t.Trace.ItersToEps = -1
		for i, p := range t.Trace.Points {
			if i > 0 && p.Below(r.Config.Eps) {
				t.Trace.ItersToEps = i
				break
			}
		}
	}
	return r, nil
}

// readCSV reads path and checks its header.
func readCSV(path string, header []string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("zosplm: %w", err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	rd.FieldsPerRecord = len(header)
	rows, err := rd.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("zosplm: %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("zosplm: %s: no header", path)
	}
	for i, h := range header {
		if rows[0][i] != h {
			return nil, fmt.Errorf("zosplm: %s: column %d is %q, want %q", path, i+1, rows[0][i], h)
		}
	}
	return rows[1:], nil
}

// fields parses the integer and float fields of a row.
type fields struct {
	row []string
	err error
}

func (f *fields) int(i int) int {
	v, err := strconv.Atoi(f.row[i])
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("column %d: %w", i+1, err)
	}
	return v
}

func (f *fields) float(i int) float64 {
	v, err := strconv.ParseFloat(f.row[i], 64)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("column %d: %w", i+1, err)
	}
	return v
}

// regime parses column i as a regime and checks the method of column m.
func (f *fields) regime(i, m int) Regime {
	r, err := ParseRegime(f.row[i])
	if err != nil && f.err == nil {
		f.err = err
	}
	if !knownMethod(f.row[m]) && f.err == nil {
		f.err = fmt.Errorf("method %q unknown, want one of %v", f.row[m], Methods)
	}
	return r
}

func knownMethod(m string) bool {
	for _, k := range Methods {
		if k == m {
			return true
		}
	}
	return false
}

func parseTrialRow(row []string) (Trial, error) {
	f := fields{row: row}
	tr := Trial{Regime: f.regime(0, 3), N: f.int(1), K: f.int(2)}
	tr.Trace = &Trace{Method: row[3], Trial: f.int(4), ItersToEps: f.int(5), Iters: f.int(6), Evals: int64(f.int(7)), Seconds: f.float(8)}
	return tr, f.err
}

// addTraceRow appends a row of a traces file to its run in runs (a new
// run when the row's key differs from the last run's).
func addTraceRow(runs *[]Trial, row []string) error {
	f := fields{row: row}
	reg, n, k, trial, iter := f.regime(0, 3), f.int(1), f.int(2), f.int(4), f.int(5)
	p := qcqp.Measures{Objective: f.float(6), Stationarity: f.float(7), Feasibility: f.float(8), Complementarity: f.float(9)}
	if f.err != nil {
		return f.err
	}
	rs := *runs
	if len(rs) == 0 || iter == 0 {
		*runs = append(rs, Trial{Regime: reg, N: n, K: k, Trace: &Trace{Method: row[3], Trial: trial}})
		rs = *runs
	}
	last := rs[len(rs)-1]
	if last.Regime != reg || last.N != n || last.Trace.Method != row[3] || len(last.Trace.Points) != iter {
		return fmt.Errorf("iteration %d of %s n = %d %s out of order", iter, reg, n, row[3])
	}
	last.Trace.Points = append(last.Trace.Points, p)
	return nil
}

// DocBlock is the generated block of docs/reproductions/zosplm.md.
var DocBlock = experiments.ReproductionBlock("zo-splm")

// DocTable renders the block's content for the run that Write wrote into
// dir from its files (ReadResult), so that the docs page and the
// committed data agree to the digit.
func DocTable(dir string) (string, error) {
	r, err := ReadResult(dir)
	if err != nil {
		return "", err
	}
	return experiments.DocSection(r.Table()), nil
}
