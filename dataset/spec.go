package dataset

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// File formats of FileSpec.Format and SaveFormat.
const (
	FormatLIBSVM = "libsvm"
	FormatCSV    = "csv"
)

// FileSpec says where a data file is and how to read it: the data block of
// a scenario (yaml tags) or the flags of a command. The zero value of every
// optional field is a documented default.
type FileSpec struct {
	// Format is "libsvm" or "csv". Empty means: guessed from the file
	// name, ".csv" or ".tsv" (before an optional ".gz") for CSV, anything
	// else LIBSVM.
	Format string `yaml:"format"`
	// Path is the file, gzip-compressed or not.
	Path string `yaml:"path"`
	// Dim is the LIBSVM feature count (0: the highest index in the file);
	// give it so that a training and a test file agree.
	Dim int `yaml:"dim"`
	// Header says the first CSV record holds the column names.
	Header bool `yaml:"header"`
	// Label picks the CSV label column: a decimal integer is a 0-based
	// column index (negative counts from the end, "-1" is the last column),
	// anything else a column name from the header. Empty means the first
	// column. LIBSVM files carry the label first on every line and take no
	// Label.
	Label string `yaml:"label"`
	// Delimiter is the CSV field delimiter, one character, or "tab";
	// empty means ",". For ".tsv" files the default is a tab.
	Delimiter string `yaml:"delimiter"`
	// Comment, if not empty, is the one character that starts a CSV
	// comment line.
	Comment string `yaml:"comment"`
}

// Resolved returns the format the file is read in: Format, or the one
// guessed from the file name.
func (s FileSpec) Resolved() string { return s.format() }

// format returns the resolved format.
func (s FileSpec) format() string {
	if s.Format != "" {
		return s.Format
	}
	base := strings.TrimSuffix(strings.ToLower(s.Path), ".gz")
	if ext := filepath.Ext(base); ext == ".csv" || ext == ".tsv" {
		return FormatCSV
	}
	return FormatLIBSVM
}

// oneRune parses a one-character option.
func oneRune(what, s string) (rune, error) {
	if s == "" {
		return 0, nil
	}
	if s == "tab" || s == `\t` {
		return '\t', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	if size != len(s) || r == utf8.RuneError {
		return 0, fmt.Errorf("dataset: %s %q, want one character (or \"tab\")", what, s)
	}
	return r, nil
}

// Options returns the reader options the spec stands for, with
// ReadLIBSVM's options for a LIBSVM file and ReadCSV's for a CSV file (the
// other is the zero value). It checks the fields and names the first
// offending one with its allowed values.
func (s FileSpec) Options() (LIBSVMOptions, CSVOptions, error) {
	var (
		lo LIBSVMOptions
		co CSVOptions
	)
	if s.Path == "" {
		return lo, co, errors.New("dataset: data path is empty")
	}
	switch s.format() {
	case FormatLIBSVM:
		switch {
		case s.Label != "":
			return lo, co, fmt.Errorf("dataset: %s: label %q given for a LIBSVM file, whose label is the first token of every line; want no label", s.Path, s.Label)
		case s.Header || s.Delimiter != "" || s.Comment != "":
			return lo, co, fmt.Errorf("dataset: %s: header, delimiter and comment are CSV options, not for a LIBSVM file", s.Path)
		case s.Dim < 0:
			return lo, co, fmt.Errorf("dataset: %s: dim = %d, want >= 0 (0: the highest index in the file)", s.Path, s.Dim)
		}
		return LIBSVMOptions{Name: s.Path, Dim: s.Dim}, co, nil
	case FormatCSV:
		if s.Dim != 0 {
			return lo, co, fmt.Errorf("dataset: %s: dim = %d is a LIBSVM option; a CSV file's width is its number of columns", s.Path, s.Dim)
		}
		comma, err := oneRune("delimiter", s.Delimiter)
		if err != nil {
			return lo, co, err
		}
		if comma == 0 && strings.HasSuffix(strings.TrimSuffix(strings.ToLower(s.Path), ".gz"), ".tsv") {
			comma = '\t'
		}
		comment, err := oneRune("comment", s.Comment)
		if err != nil {
			return lo, co, err
		}
		co = CSVOptions{Name: s.Path, Comma: comma, Comment: comment, Header: s.Header}
		if k, err := strconv.Atoi(s.Label); err == nil {
			co.LabelIndex = k
		} else if s.Label != "" {
			if !s.Header {
				return lo, co, fmt.Errorf("dataset: %s: label column %q is a name but header is false; set header: true or give a 0-based column index", s.Path, s.Label)
			}
			co.Label = s.Label
		}
		return lo, co, nil
	}
	return lo, co, fmt.Errorf("dataset: %s: format %q unknown; want libsvm or csv", s.Path, s.Format)
}

// Load reads the file the spec describes.
func (s FileSpec) Load() (*Dataset, error) {
	lo, co, err := s.Options()
	if err != nil {
		return nil, err
	}
	if s.format() == FormatCSV {
		return LoadCSV(s.Path, co)
	}
	return LoadLIBSVM(s.Path, lo)
}

// Write writes d to w in the given format: WriteLIBSVM, or WriteCSV with
// a header and ',' delimiter.
func Write(w io.Writer, d *Dataset, format string) error {
	switch format {
	case FormatLIBSVM:
		return WriteLIBSVM(w, d)
	case FormatCSV:
		return WriteCSV(w, d, CSVWriteOptions{Header: true})
	}
	return fmt.Errorf("dataset: format %q unknown; want libsvm or csv", format)
}

// Save writes d to a new file at path in the given format (see Write),
// gzip-compressed when path ends in ".gz". It refuses to overwrite an
// existing file.
func Save(path string, d *Dataset, format string) error {
	if format != FormatLIBSVM && format != FormatCSV {
		return fmt.Errorf("dataset: format %q unknown; want libsvm or csv", format)
	}
	return saveFile(path, func(w io.Writer) error { return Write(w, d, format) })
}

// SaveShards writes shard i to the new file fmt.Sprintf(pattern, i) for
// every i, in the given format (see Save), and returns the paths. pattern
// must contain one integer verb, e.g. "out/a9a-%d.svm". It refuses to
// overwrite existing files and stops at the first error.
func SaveShards(pattern string, shards []*Dataset, format string) ([]string, error) {
	if a, b := fmt.Sprintf(pattern, 0), fmt.Sprintf(pattern, 1); a == b || strings.Contains(a, "%!") {
		return nil, fmt.Errorf("dataset: shard file pattern %q, want one integer verb such as %%d or %%03d", pattern)
	}
	paths := make([]string, len(shards))
	for i, d := range shards {
		paths[i] = fmt.Sprintf(pattern, i)
		if err := Save(paths[i], d, format); err != nil {
			return paths[:i], fmt.Errorf("shard %d: %w", i, err)
		}
	}
	return paths, nil
}
