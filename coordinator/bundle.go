package coordinator

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Names of the files of a results bundle.
const (
	ScenarioFile    = "scenario.yaml"
	MetricsJSONFile = "metrics.jsonl"
	MetricsCSVFile  = "metrics.csv"
	SummaryFile     = "summary.json"
)

// bundle is the results directory of one run and its open metric files.
type bundle struct {
	dir   string
	jsonl *os.File
	csvf  *os.File
	csvw  *csv.Writer
}

// CheckBundle reports whether the bundle of run id under root may be
// created: ErrBundleExists if its directory is already there. Callers use
// it before they start agents; Run still refuses an existing directory.
func CheckBundle(root, id string) error {
	dir := filepath.Join(root, id)
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%w: %s (a run never rewrites earlier output; choose another run id)", ErrBundleExists, dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check results bundle %s: %w", dir, err)
	}
	return nil
}

// createBundle makes the new directory root/id, writes scenario (if not
// empty) and opens the metric files, the CSV with its header: the fixed
// Columns, then the algorithm's declared measures. It refuses a directory
// that already exists, unless resume is set and the directory holds no
// summary (the bundle of a coordinator that died, see Config.Resume):
// that one is replaced.
func createBundle(root, id string, scenario []byte, measures []string, resume bool) (b *bundle, err error) {
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
			return nil, fmt.Errorf("%w: %s (a run never rewrites earlier output; choose another run id)", ErrBundleExists, dir)
		}
		return nil, fmt.Errorf("create results bundle: %w", err)
	}
	defer func() {
		if err != nil {
			// A half-made bundle would block a retry with the same id.
			os.RemoveAll(dir)
		}
	}()
	b = &bundle{dir: dir}
	if len(scenario) > 0 {
		if err := writeNew(filepath.Join(dir, ScenarioFile), scenario); err != nil {
			return nil, err
		}
	}
	if b.jsonl, err = openNew(filepath.Join(dir, MetricsJSONFile)); err != nil {
		return nil, err
	}
	if b.csvf, err = openNew(filepath.Join(dir, MetricsCSVFile)); err != nil {
		b.jsonl.Close()
		return nil, err
	}
	b.csvw = csv.NewWriter(b.csvf)
	if err := b.writeCSV(append(Columns(), measures...)); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// removeUnfinished removes the bundle dir of a run whose coordinator died
// before it wrote the summary; a finished bundle is ErrBundleExists, and
// no directory is nothing to do.
func removeUnfinished(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	switch _, err := os.Lstat(filepath.Join(dir, SummaryFile)); {
	case err == nil:
		return fmt.Errorf("%w: %s has %s: the run finished, there is nothing to resume", ErrBundleExists, dir, SummaryFile)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("check results bundle %s: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("replace the unfinished bundle %s: %w", dir, err)
	}
	return nil
}

// appendRow writes r as one line of metrics.jsonl and of metrics.csv. Each
// line reaches the file before appendRow returns.
func (b *bundle) appendRow(r Row) error {
	line, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := b.jsonl.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", b.jsonl.Name(), err)
	}
	return b.writeCSV(r.csvRecord())
}

// writeCSV writes and flushes one CSV record.
func (b *bundle) writeCSV(rec []string) error {
	if err := b.csvw.Write(rec); err != nil {
		return fmt.Errorf("write %s: %w", b.csvf.Name(), err)
	}
	b.csvw.Flush()
	if err := b.csvw.Error(); err != nil {
		return fmt.Errorf("write %s: %w", b.csvf.Name(), err)
	}
	return nil
}

// writeSummary writes s as summary.json, indented.
func (b *bundle) writeSummary(s *Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	return writeNew(filepath.Join(b.dir, SummaryFile), append(data, '\n'))
}

// close closes the metric files.
func (b *bundle) close() error {
	var errs []error
	for _, f := range []*os.File{b.jsonl, b.csvf} {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", f.Name(), err))
		}
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
