package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/consim/consim/coordinator"
)

// Names of the files and directories this package reads and writes.
const (
	SweepCSV     = "sweep.csv"
	AggregateCSV = "aggregate.csv"
	AggregateMD  = "aggregate.md"
	ReportMD     = "report.md"
	PlotsDir     = "plots"
	RunsDir      = "runs"
)

// unknownUnfinished stands for a value only summary.json holds, in the
// report of a run that did not finish.
const unknownUnfinished = "unknown (run did not finish)"

// Run is one run bundle read back.
type Run struct {
	// Dir is the bundle directory.
	Dir string
	// Summary is summary.json; it is the zero Summary when Incomplete.
	Summary coordinator.Summary
	// Rows are the lines of the metrics file in order.
	Rows []coordinator.Row
	// HasMsgs says the rows carry the msgs and bytes columns; bundles
	// written before those columns existed read 0 there.
	HasMsgs bool
	// Incomplete says the bundle has no summary.json: the run did not
	// finish (it was killed, or its process crashed), so its status, stop
	// cause, wall time and traffic totals are unknown and only Rows are
	// known.
	Incomplete bool
	// MetricsFile is the name of the file Rows were read from:
	// metrics.jsonl, or metrics.csv for an incomplete bundle without it.
	MetricsFile string
	// Skipped counts the trailing lines of the metrics file of an
	// incomplete bundle that were left out: a last line without its
	// newline (cut by the crash) and lines that do not parse. It is 0 for
	// a complete bundle, whose every line must parse.
	Skipped int
}

// ID is the run id: the summary's, or the bundle directory's name (which
// the coordinator names after the run id) when the bundle is incomplete.
func (r *Run) ID() string {
	if r.Incomplete || r.Summary.RunID == "" {
		return filepath.Base(r.Dir)
	}
	return r.Summary.RunID
}

// LastRound is the round of the last row read, -1 when there is none.
func (r *Run) LastRound() int {
	if len(r.Rows) == 0 {
		return -1
	}
	return r.Rows[len(r.Rows)-1].Round
}

// IncompleteNote says, for an incomplete bundle, that the run did not
// finish, what is unknown and how much was read, e.g. "the run did not
// finish (no summary.json: status unknown, last round recorded 120, 1
// incomplete trailing line of metrics.jsonl skipped)". It is empty for a
// complete bundle.
func (r *Run) IncompleteNote() string {
	if !r.Incomplete {
		return ""
	}
	last := "no round recorded"
	if len(r.Rows) > 0 {
		last = fmt.Sprintf("last round recorded %d", r.LastRound())
	}
	lines := "lines"
	if r.Skipped == 1 {
		lines = "line"
	}
	return fmt.Sprintf("the run did not finish (no %s: status unknown, %s, %d incomplete trailing %s of %s skipped)",
		coordinator.SummaryFile, last, r.Skipped, lines, r.MetricsFile)
}

// ReadRun reads the run bundle at dir: summary.json and metrics.jsonl, or,
// when there is no summary.json (a run that did not finish, see Detect),
// the complete lines of metrics.jsonl (of metrics.csv when there is no
// metrics.jsonl) with Incomplete set. In an incomplete bundle a trailing
// line without its newline, and trailing lines that do not parse, are
// left out and counted in Skipped; a line that does not parse followed by
// one that does is an error, as is any line that does not parse in a
// complete bundle. Every error matches ErrBadInput.
func ReadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir, MetricsFile: coordinator.MetricsJSONFile}
	data, err := os.ReadFile(filepath.Join(dir, coordinator.SummaryFile))
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &r.Summary); err != nil {
			return nil, fmt.Errorf("%w: read run bundle: %s: %w", ErrBadInput, coordinator.SummaryFile, err)
		}
	case errors.Is(err, fs.ErrNotExist):
		r.Incomplete = true
		if _, err := os.Stat(filepath.Join(dir, coordinator.MetricsJSONFile)); errors.Is(err, fs.ErrNotExist) {
			r.MetricsFile = coordinator.MetricsCSVFile
		}
	default:
		return nil, fmt.Errorf("%w: read run bundle: %w", ErrBadInput, err)
	}
	path := filepath.Join(dir, r.MetricsFile)
	data, err = os.ReadFile(path)
	if err != nil {
		if r.Incomplete && errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: read run bundle: %s has neither %s nor %s nor %s",
				ErrBadInput, dir, coordinator.SummaryFile, coordinator.MetricsJSONFile, coordinator.MetricsCSVFile)
		}
		return nil, fmt.Errorf("%w: read run bundle: %w", ErrBadInput, err)
	}
	parse := r.jsonLine
	if r.MetricsFile == coordinator.MetricsCSVFile {
		var header []string
		parse = func(line []byte) error {
			if header == nil {
				h, err := csvFields(line)
				header = h
				return err
			}
			return r.csvLine(header, line)
		}
	}
	if err := r.readLines(path, data, parse); err != nil {
		return nil, fmt.Errorf("%w: read run bundle: %w", ErrBadInput, err)
	}
	return r, nil
}

// readLines hands each non-empty line of data, the contents of path, to
// parse. A complete bundle
// takes the last line without its newline too; an incomplete one skips
// it and the trailing lines parse refuses (see ReadRun).
func (r *Run) readLines(path string, data []byte, parse func(line []byte) error) error {
	var (
		bad     error // the first refused line since the last row
		badLine int
	)
	for line := 1; len(data) > 0; line++ {
		text, rest, terminated := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !terminated && r.Incomplete {
			r.Skipped++
			break
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		err := parse(text)
		switch {
		case err == nil && bad != nil:
			return fmt.Errorf("%s:%d: %w (later lines parse, so this is not a line cut short by a crash)", path, badLine, bad)
		case err == nil:
		case !r.Incomplete:
			return fmt.Errorf("%s:%d: %w", path, line, err)
		default:
			if bad == nil {
				bad, badLine = err, line
			}
			r.Skipped++
		}
	}
	return nil
}

// jsonLine appends the row of one line of metrics.jsonl; the first row
// decides HasMsgs.
func (r *Run) jsonLine(line []byte) error {
	var row coordinator.Row
	if err := row.UnmarshalJSON(line); err != nil {
		return err
	}
	if len(r.Rows) == 0 {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(line, &keys); err != nil {
			return err
		}
		_, r.HasMsgs = keys["msgs"]
	}
	r.Rows = append(r.Rows, row)
	return nil
}

// csvLine appends the row of one record of metrics.csv under header: an
// empty field is a missing value, as coordinator writes it.
func (r *Run) csvLine(header []string, line []byte) error {
	rec, err := csvFields(line)
	if err != nil {
		return err
	}
	if len(rec) != len(header) {
		return fmt.Errorf("%d fields, want %d as in the header", len(rec), len(header))
	}
	// The same object metrics.jsonl holds, decoded as it is.
	obj := []byte{'{'}
	for k, name := range header {
		if k > 0 {
			obj = append(obj, ',')
		}
		obj = strconv.AppendQuote(obj, name)
		obj = append(obj, ':')
		if rec[k] == "" {
			obj = append(obj, "null"...)
			continue
		}
		v, err := strconv.ParseFloat(rec[k], 64)
		if err != nil {
			return fmt.Errorf("column %s: %q is not a number", name, rec[k])
		}
		obj = strconv.AppendFloat(obj, v, 'g', -1, 64)
	}
	return r.jsonLine(append(obj, '}'))
}

// csvFields splits one CSV line into its fields.
func csvFields(line []byte) ([]string, error) {
	rec, err := csv.NewReader(bytes.NewReader(line)).Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty CSV record")
	}
	return rec, err
}

// Kind is what a results directory holds.
type Kind int

// Kinds of results directories.
const (
	KindUnknown Kind = iota
	KindRun          // a run bundle: summary.json
	KindSweep        // a sweep directory: sweep.csv
	// KindIncompleteRun is the bundle of a run that did not finish:
	// scenario.yaml and metrics.jsonl or metrics.csv, no summary.json.
	KindIncompleteRun
)

// Detect tells a run bundle from a sweep directory: sweep.csv makes a
// sweep directory, else summary.json a run bundle, else scenario.yaml
// with metrics.jsonl or metrics.csv the bundle of a run that did not
// finish. It returns KindUnknown, and no error, for a directory that is
// none of these (see NotResultsDir).
func Detect(dir string) (Kind, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return KindUnknown, fmt.Errorf("results directory: %w", err)
	}
	if !fi.IsDir() {
		return KindUnknown, fmt.Errorf("results directory: %s is not a directory", dir)
	}
	has := func(name string) (bool, error) {
		_, err := os.Stat(filepath.Join(dir, name))
		if err == nil {
			return true, nil
		} else if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("results directory: %w", err)
	}
	for _, c := range []struct {
		files []string // all of these
		kind  Kind
	}{
		{[]string{SweepCSV}, KindSweep},
		{[]string{coordinator.SummaryFile}, KindRun},
		{[]string{coordinator.ScenarioFile, coordinator.MetricsJSONFile}, KindIncompleteRun},
		{[]string{coordinator.ScenarioFile, coordinator.MetricsCSVFile}, KindIncompleteRun},
	} {
		all := true
		for _, f := range c.files {
			ok, err := has(f)
			if err != nil {
				return KindUnknown, err
			}
			if !ok {
				all = false
				break
			}
		}
		if all {
			return c.kind, nil
		}
	}
	return KindUnknown, nil
}

// NotResultsDir returns the error for a directory Detect finds to be
// KindUnknown, naming the files it looked for. It matches ErrBadInput.
func NotResultsDir(dir string) error {
	return fmt.Errorf("%w: %s is neither a run bundle (%s; or %s with %s or %s, from a run that did not finish) nor a sweep directory (%s)",
		ErrBadInput, dir, coordinator.SummaryFile, coordinator.ScenarioFile,
		coordinator.MetricsJSONFile, coordinator.MetricsCSVFile, SweepCSV)
}
