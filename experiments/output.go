package experiments

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NewDir creates dir, and its parents as needed; dir itself must not
// exist, so that a run never rewrites earlier output. An existing dir is
// an error wrapping os.ErrExist.
func NewDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create output parent: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	return nil
}

// createNewFile creates path for writing; it fails if path exists.
func createNewFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// WriteFile creates path, which must not exist, with the bytes of src.
func WriteFile(path string, src io.WriterTo) (err error) {
	f, err := createNewFile(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", path, cerr)
		}
	}()
	if _, err := src.WriteTo(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WriteCSV creates path, which must not exist, with header and rows.
func WriteCSV(path string, header []string, rows [][]string) (err error) {
	f, err := createNewFile(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", path, cerr)
		}
	}()
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.WriteAll(rows); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Report is an experiment's result as its files: table.md (Table) and
// the data and figures beside it (Write).
type Report interface {
	// Table renders table.md: the setup, the results and the paper's
	// claims read on them, in markdown.
	Table() string
	// Write writes the data files and figures into dir, none of which
	// may exist.
	Write(dir string) error
}

// TableFile is the name of the table Publish writes.
const TableFile = "table.md"

// Publish writes r's files into dir, then table.md, and returns the
// table. A non-zero start adds the wall time since start as its last line
// (WallLine).
func Publish(dir string, r Report, start time.Time) (string, error) {
	if err := r.Write(dir); err != nil {
		return "", err
	}
	md := r.Table()
	if !start.IsZero() {
		md += WallLine(time.Since(start))
	}
	if err := WriteFile(filepath.Join(dir, TableFile), strings.NewReader(md)); err != nil {
		return "", err
	}
	return md, nil
}

// WallLine is the last line of a table.md: a command's wall time.
func WallLine(d time.Duration) string {
	return fmt.Sprintf("\nWall time: %.1f s.\n", d.Seconds())
}
