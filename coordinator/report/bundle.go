package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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

// Run is one run bundle read back.
type Run struct {
	// Dir is the bundle directory.
	Dir     string
	Summary coordinator.Summary
	// Rows are the lines of metrics.jsonl in order.
	Rows []coordinator.Row
	// HasMsgs says the rows carry the msgs and bytes columns; bundles
	// written before those columns existed read 0 there.
	HasMsgs bool
}

// ReadRun reads summary.json and metrics.jsonl of the bundle at dir.
func ReadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, coordinator.SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("%w: read run bundle: %w", ErrBadInput, err)
	}
	if err := json.Unmarshal(data, &r.Summary); err != nil {
		return nil, fmt.Errorf("%w: read run bundle: %s: %w", ErrBadInput, coordinator.SummaryFile, err)
	}
	path := filepath.Join(dir, coordinator.MetricsJSONFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read run bundle: %w", ErrBadInput, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var row coordinator.Row
		if err := row.UnmarshalJSON(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("%w: read run bundle: %s:%d: %w", ErrBadInput, path, line, err)
		}
		if len(r.Rows) == 0 {
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &keys); err != nil {
				return nil, fmt.Errorf("%w: read run bundle: %s:%d: %w", ErrBadInput, path, line, err)
			}
			_, r.HasMsgs = keys["msgs"]
		}
		r.Rows = append(r.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: read run bundle: %s: %w", ErrBadInput, path, err)
	}
	return r, nil
}

// Kind is what a results directory holds.
type Kind int

// Kinds of results directories.
const (
	KindUnknown Kind = iota
	KindRun          // a run bundle: summary.json
	KindSweep        // a sweep directory: sweep.csv
)

// Detect tells a run bundle from a sweep directory.
func Detect(dir string) (Kind, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return KindUnknown, fmt.Errorf("results directory: %w", err)
	}
	if !fi.IsDir() {
		return KindUnknown, fmt.Errorf("results directory: %s is not a directory", dir)
	}
	for _, c := range []struct {
		file string
		kind Kind
	}{{SweepCSV, KindSweep}, {coordinator.SummaryFile, KindRun}} {
		if _, err := os.Stat(filepath.Join(dir, c.file)); err == nil {
			return c.kind, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return KindUnknown, fmt.Errorf("results directory: %w", err)
		}
	}
	return KindUnknown, nil
}
