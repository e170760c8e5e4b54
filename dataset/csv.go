package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CSVOptions configures ReadCSV. The zero value reads comma-separated
// numbers without a header, the label in the first column.
type CSVOptions struct {
	// Name is the file name used in error messages (LoadCSV sets it to the
	// path when empty).
	Name string
	// Comma is the field delimiter; 0 means ','. It may not be '"', '\r',
	// '\n' or an invalid rune, and must differ from Comment.
	Comma rune
	// Comment, if not 0, starts a comment line: lines beginning with it
	// are skipped.
	Comment rune
	// Header says the first record holds the column names.
	Header bool
	// Label is the name of the label column; it needs Header. If empty,
	// LabelIndex picks the column.
	Label string
	// LabelIndex is the 0-based index of the label column when Label is
	// empty; a negative value counts from the end (-1 is the last column).
	// The zero value is the first column.
	LabelIndex int
	// MaxValues bounds M*Dim; 0 means DefaultMaxValues.
	MaxValues int
}

// LoadCSV reads the CSV file at path; see ReadCSV.
func LoadCSV(path string, opt CSVOptions) (*Dataset, error) {
	if opt.Name == "" {
		opt.Name = path
	}
	return loadFile(path, func(r io.Reader) (*Dataset, error) { return ReadCSV(r, opt) })
}

// validDelim reports whether encoding/csv accepts r as a delimiter.
func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}

// ReadCSV reads a dense table of numbers, gzip-compressed or not (detected
// from the first bytes), in the CSV dialect of encoding/csv (RFC 4180
// quoting) with the given delimiter. Leading and trailing spaces of a
// field are ignored and blank lines are skipped. Every record must have
// the width of the first; one column is the label (chosen by name or
// index), the others are the features, in file order, and every field
// must be a finite number (anything strconv.ParseFloat reads).
//
// Any malformed record gives a *ParseError naming the file, line and
// column, and the field's name when there is a header, e.g.
// `adult.data:1:5: field 2 ("workclass") = "State-gov" is not a finite number`.
func ReadCSV(r io.Reader, opt CSVOptions) (*Dataset, error) {
	name := opt.Name
	if name == "" {
		name = "(csv)"
	}
	comma := opt.Comma
	if comma == 0 {
		comma = ','
	}
	maxValues := opt.MaxValues
	if maxValues <= 0 {
		maxValues = DefaultMaxValues
	}
	switch {
	case !validDelim(comma):
		return nil, fmt.Errorf("dataset: %s: CSV delimiter %q is not allowed (not '\"', '\\r', '\\n' or an invalid rune)", name, comma)
	case opt.Comment != 0 && (!validDelim(opt.Comment) || opt.Comment == comma):
		return nil, fmt.Errorf("dataset: %s: CSV comment character %q is not allowed (it must be a valid rune other than the delimiter, '\"', '\\r', '\\n')", name, opt.Comment)
	case opt.Label != "" && !opt.Header:
		return nil, fmt.Errorf("dataset: %s: label column named %q but the CSV options say there is no header; set Header or use LabelIndex", name, opt.Label)
	}
	br, err := textInput(r, name)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.Comma = comma
	cr.Comment = opt.Comment
	cr.FieldsPerRecord = -1
	// encoding/csv would trim a whitespace delimiter too, merging empty
	// fields; fields are trimmed below in any case.
	cr.TrimLeadingSpace = !unicode.IsSpace(comma)
	cr.ReuseRecord = true

	read := func() ([]string, error) {
		rec, err := cr.Read()
		if err == nil || err == io.EOF {
			return rec, err
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, &ParseError{File: name, Line: pe.Line, Column: pe.Column, Msg: "malformed CSV", Err: pe.Err}
		}
		return nil, &ParseError{File: name, Msg: "read", Err: err}
	}

	var (
		names  []string
		width  int
		wline  int // line that fixed the width
		label  = -1
		d      = &Dataset{Source: name}
		values int
	)
	// setWidth fixes the record width and the label column from the first
	// record.
	setWidth := func(rec []string) error {
		width = len(rec)
		wline, _ = cr.FieldPos(0)
		if width < 2 {
			return &ParseError{File: name, Line: wline, Msg: fmt.Sprintf("%d column(s), want at least 2 (a label and a feature); is the delimiter %q right?", width, comma)}
		}
		if opt.Label != "" {
			for j, s := range names {
				if s != opt.Label {
					continue
				}
				if label >= 0 {
					return &ParseError{File: name, Line: wline, Msg: fmt.Sprintf("label column name %q is ambiguous: columns %d and %d (0-based) share it", opt.Label, label, j)}
				}
				label = j
			}
			if label < 0 {
				return &ParseError{File: name, Line: wline, Msg: fmt.Sprintf("no column named %q for the label; columns: %s", opt.Label, listNames(names))}
			}
		} else {
			label = opt.LabelIndex
			if label < 0 {
				label += width
			}
			if label < 0 || label >= width {
				return &ParseError{File: name, Line: wline, Msg: fmt.Sprintf("label column index %d is out of range for %d columns (want -%d .. %d)", opt.LabelIndex, width, width, width-1)}
			}
		}
		d.Dim = width - 1
		if names != nil {
			d.LabelName = names[label]
			d.Names = make([]string, 0, d.Dim)
			for j, s := range names {
				if j != label {
					d.Names = append(d.Names, s)
				}
			}
		}
		return nil
	}

	if opt.Header {
		rec, err := read()
		if err == io.EOF {
			return nil, &ParseError{File: name, Msg: "empty file: want a header line and at least one row"}
		}
		if err != nil {
			return nil, err
		}
		names = make([]string, len(rec))
		for j, s := range rec {
			names[j] = strings.TrimSpace(s)
		}
		if err := setWidth(rec); err != nil {
			return nil, err
		}
	}
	for {
		rec, err := read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if width == 0 {
			if err := setWidth(rec); err != nil {
				return nil, err
			}
		}
		if len(rec) != width {
			what := "the first record"
			if opt.Header {
				what = "the header"
			}
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("%d fields, want %d as in %s (line %d)", len(rec), width, what, wline)}
		}
		if values += d.Dim; values > maxValues {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("more than MaxValues = %d values", maxValues), Err: ErrTooLarge}
		}
		for j, s := range rec {
			v, ok := parseFinite([]byte(strings.TrimSpace(s)))
			if !ok {
				fl, fc := cr.FieldPos(j)
				field := fmt.Sprintf("field %d", j+1)
				if names != nil {
					field += fmt.Sprintf(" (%q)", names[j])
				}
				if strings.TrimSpace(s) == "" {
					return nil, &ParseError{File: name, Line: fl, Column: fc, Msg: field + " is empty, want a finite number"}
				}
				return nil, &ParseError{File: name, Line: fl, Column: fc, Msg: fmt.Sprintf("%s = %q is not a finite number", field, s)}
			}
			if j == label {
				d.Y = append(d.Y, v)
			} else {
				d.X = append(d.X, v)
			}
		}
	}
	if len(d.Y) == 0 {
		return nil, &ParseError{File: name, Msg: "no data rows"}
	}
	return d, nil
}

// CSVWriteOptions configures WriteCSV.
type CSVWriteOptions struct {
	// Comma is the field delimiter; 0 means ','.
	Comma rune
	// Header writes a first line of column names: LabelName then Names,
	// or, when d has no Names, "label" then x1 .. xn.
	Header bool
}

// WriteCSV writes d as CSV: one record per row, the label first, then the
// Dim features, each number formatted by strconv.FormatFloat(v, 'g', -1,
// 64) so that ReadCSV (with LabelIndex 0 and the same Comma and Header)
// gives d's values back bit for bit. Query ids are not written. It fails
// if d is not valid.
func WriteCSV(w io.Writer, d *Dataset, opt CSVWriteOptions) error {
	if err := d.Validate(); err != nil {
		return err
	}
	comma := opt.Comma
	if comma == 0 {
		comma = ','
	}
	if !validDelim(comma) {
		return fmt.Errorf("dataset: CSV delimiter %q is not allowed (not '\"', '\\r', '\\n' or an invalid rune)", comma)
	}
	cw := csv.NewWriter(w)
	cw.Comma = comma
	rec := make([]string, d.Dim+1)
	if opt.Header {
		if d.Names != nil {
			rec[0] = d.LabelName
			copy(rec[1:], d.Names)
		} else {
			rec[0] = "label"
			for j := range d.Dim {
				rec[j+1] = "x" + strconv.Itoa(j+1)
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("dataset: write CSV header: %w", err)
		}
	}
	for k := range d.Rows() {
		rec[0] = strconv.FormatFloat(d.Y[k], 'g', -1, 64)
		for j, v := range d.Row(k) {
			rec[j+1] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("dataset: write CSV row %d: %w", k, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("dataset: write CSV: %w", err)
	}
	return nil
}

// SaveCSV writes d to a new file at path with WriteCSV, gzip-compressed
// when path ends in ".gz". It refuses to overwrite an existing file.
func SaveCSV(path string, d *Dataset, opt CSVWriteOptions) error {
	return saveFile(path, func(w io.Writer) error { return WriteCSV(w, d, opt) })
}
