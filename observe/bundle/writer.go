// Package bundle writes the results bundle of a run, the one format every
// engine produces (the coordinator's runs on transports and the stepped
// engine's):
//
//	<root>/<run id>/scenario.yaml   the resolved scenario, as given
//	<root>/<run id>/metrics.jsonl   one Row per measured round, as JSON
//	<root>/<run id>/metrics.csv     the same rows, header Columns
//	<root>/<run id>/final.json      each agent's last iterate (FinalIterates)
//	<root>/<run id>/summary.json    the run's summary, written when it ends
//	<root>/<run id>/<name>          the algorithm's own files (artefacts)
//
// A run never rewrites earlier output: an existing bundle directory is an
// error (ErrExists), and every file is created new. Metric lines are
// flushed one by one, so a crash keeps every line written before it.
//
// bundle may import observe and consensus/registry; it must not import
// node, coordinator, stepped, scenarios or cmd.
package bundle

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/consim/consim/consensus/registry"
)

// Names of the files of a results bundle.
const (
	ScenarioFile    = "scenario.yaml"
	MetricsJSONFile = "metrics.jsonl"
	MetricsCSVFile  = "metrics.csv"
	SummaryFile     = "summary.json"
)

// ErrExists is wrapped by the errors of a bundle whose directory is
// already there.
var ErrExists = errors.New("results bundle already exists")

// Writer is the results directory of one run and its open metric files.
// Its methods must be called from one goroutine at a time.
type Writer struct {
	dir   string
	jsonl *os.File
	csvf  *os.File
	csvw  *csv.Writer
}

// Check reports whether the bundle of run id under root may be created:
// ErrExists if its directory is already there. Callers use it before they
// start agents; Create still refuses an existing directory.
func Check(root, id string) error {
	dir := filepath.Join(root, id)
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%w: %s (a run never rewrites earlier output; choose another run id)", ErrExists, dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check results bundle %s: %w", dir, err)
	}
	return nil
}

// Create makes the new directory root/id, writes scenario (if not empty)
// and opens the metric files, the CSV with its header: the fixed Columns,
// then the algorithm's declared measures. It refuses a directory that
// already exists, unless resume is set and the directory holds no summary
// (the bundle of a coordinator that died): that one is replaced.
func Create(root, id string, scenario []byte, measures []string, resume bool) (w *Writer, err error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create results root: %w", err)
	}
	dir := filepath.Join(root, id)
	if resume {
		if err := removeUnfinished(dir); err != nil {
			return nil, err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: %s (a run never rewrites earlier output; choose another run id)", ErrExists, dir)
		}
		return nil, fmt.Errorf("create results bundle: %w", err)
	}
	defer func() {
		if err != nil {
			// A half-made bundle would block a retry with the same id.
			os.RemoveAll(dir)
		}
	}()
	w = &Writer{dir: dir}
	if len(scenario) > 0 {
		if err := writeNew(filepath.Join(dir, ScenarioFile), scenario); err != nil {
			return nil, err
		}
	}
	if w.jsonl, err = openNew(filepath.Join(dir, MetricsJSONFile)); err != nil {
		return nil, err
	}
	if w.csvf, err = openNew(filepath.Join(dir, MetricsCSVFile)); err != nil {
		w.jsonl.Close()
		return nil, err
	}
	w.csvw = csv.NewWriter(w.csvf)
	if err := w.writeCSV(append(Columns(), measures...)); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// removeUnfinished removes the bundle dir of a run whose coordinator died
// before it wrote the summary; a finished bundle is ErrExists, and no
// directory is nothing to do.
func removeUnfinished(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	switch _, err := os.Lstat(filepath.Join(dir, SummaryFile)); {
	case err == nil:
		return fmt.Errorf("%w: %s has %s: the run finished, there is nothing to resume", ErrExists, dir, SummaryFile)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("check results bundle %s: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("replace the unfinished bundle %s: %w", dir, err)
	}
	return nil
}

// Dir is the bundle's directory.
func (w *Writer) Dir() string { return w.dir }

// Append writes r as one line of metrics.jsonl and of metrics.csv. Each
// line reaches the file before Append returns.
func (w *Writer) Append(r Row) error {
	line, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := w.jsonl.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", w.jsonl.Name(), err)
	}
	return w.writeCSV(r.CSVRecord())
}

// writeCSV writes and flushes one CSV record.
func (w *Writer) writeCSV(rec []string) error {
	if err := w.csvw.Write(rec); err != nil {
		return fmt.Errorf("write %s: %w", w.csvf.Name(), err)
	}
	w.csvw.Flush()
	if err := w.csvw.Error(); err != nil {
		return fmt.Errorf("write %s: %w", w.csvf.Name(), err)
	}
	return nil
}

// WriteFinal writes f as final.json.
func (w *Writer) WriteFinal(f FinalIterates) error {
	return w.writeJSON(FinalFile, "final iterates", f)
}

// WriteFiles writes the run's own files (a picture of the final state,
// say). A name must be a plain file name that is not one of the bundle's
// own files; no file is rewritten.
func (w *Writer) WriteFiles(files []registry.File) error {
	for _, f := range files {
		switch f.Name {
		case "", ".", "..", ScenarioFile, MetricsJSONFile, MetricsCSVFile, SummaryFile, FinalFile:
			return fmt.Errorf("artefacts: file name %q is empty or one of the bundle's own files", f.Name)
		}
		if strings.ContainsAny(f.Name, `/\`) {
			return fmt.Errorf("artefacts: file name %q must be a plain name, without a path", f.Name)
		}
		if err := writeNew(filepath.Join(w.dir, f.Name), f.Data); err != nil {
			return fmt.Errorf("artefacts: %w", err)
		}
	}
	return nil
}

// WriteSummary writes s, the run's summary, as summary.json.
func (w *Writer) WriteSummary(s any) error { return w.writeJSON(SummaryFile, "summary", s) }

// writeJSON writes v, indented, as the new file name of the bundle.
func (w *Writer) writeJSON(name, what string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	return writeNew(filepath.Join(w.dir, name), append(data, '\n'))
}

// Close closes the metric files; it may be called more than once.
func (w *Writer) Close() error {
	var errs []error
	for _, f := range []**os.File{&w.jsonl, &w.csvf} {
		if *f == nil {
			continue
		}
		if err := (*f).Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", (*f).Name(), err))
		}
		*f = nil
	}
	return errors.Join(errs...)
}

// openNew creates path for writing; it must not exist.
func openNew(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return f, nil
}

// writeNew creates path with data; it must not exist.
func writeNew(path string, data []byte) error {
	f, err := openNew(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
