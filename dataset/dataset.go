// Package dataset owns users' data files: it reads labelled examples from
// LIBSVM/SVMlight and CSV text (gzip-compressed or not) into a compact dense
// Dataset, maps labels to the conventions of the problems, splits a data set
// into the shards of N agents (contiguous blocks, a seeded random
// permutation, or groups by the value of a column), and writes data sets
// and shards back as LIBSVM or CSV so that reading them again gives the
// same bits. idx.go reads the IDX files of the MNIST distribution.
//
// All file I/O of user data lives here, never in package consensus or its
// subpackages: a caller loads and shards a Dataset here and hands the
// per-agent matrices to objective (FromShards, LocalFromShard).
// Every malformed input is reported as a *ParseError naming the file, the
// line (and the column or field where it helps) and what was expected; no
// input makes a reader panic.
//
// dataset imports graph (common randomness for the random sharding) and the
// standard library only; it must not import consensus, node, coordinator,
// scenarios or cmd.
package dataset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Dataset is a labelled data set held densely: M examples (rows) with Dim
// features each.
//
// X holds the features row-major in one slice of length M*Dim: feature j
// (0-based) of example k is X[k*Dim+j]. Y holds the M labels (or
// regression targets). All values are finite.
type Dataset struct {
	// X is the M x Dim feature matrix, row-major.
	X []float64
	// Y holds the label of every row.
	Y []float64
	// Dim is the number of features per row, Dim >= 1.
	Dim int
	// Names, if not nil, holds the Dim feature (column) names, e.g. from a
	// CSV header. LIBSVM data have no names.
	Names []string
	// LabelName is the name of the label column, if the source named it.
	LabelName string
	// QID, if not nil, holds the SVMlight query id of every row (qid:N).
	QID []int64
	// Source names where the data came from (a file name), for messages.
	Source string
}

// Rows returns M, the number of examples.
func (d *Dataset) Rows() int { return len(d.Y) }

// Row returns the features of example k, a slice of X (not a copy).
func (d *Dataset) Row(k int) []float64 { return d.X[k*d.Dim : (k+1)*d.Dim : (k+1)*d.Dim] }

// Validate checks the invariants: Dim >= 1, at least one row,
// len(X) = M*Dim, Names nil or of length Dim, QID nil or of length M, and
// every value finite. It names the first offending row and feature.
func (d *Dataset) Validate() error {
	if err := d.checkShape(); err != nil {
		return err
	}
	for k, y := range d.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("dataset %s: row %d: label %g, want a finite number", d.name(), k, y)
		}
	}
	for p, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("dataset %s: row %d feature %d: value %g, want a finite number", d.name(), p/d.Dim, p%d.Dim, v)
		}
	}
	return nil
}

// checkShape checks the invariants of Validate except the finiteness of
// the values.
func (d *Dataset) checkShape() error {
	m := len(d.Y)
	switch {
	case d.Dim < 1:
		return fmt.Errorf("dataset %s: Dim = %d, want >= 1", d.name(), d.Dim)
	case m == 0:
		return fmt.Errorf("dataset %s: no rows", d.name())
	case len(d.X)/d.Dim != m || len(d.X)%d.Dim != 0:
		return fmt.Errorf("dataset %s: len(X) = %d, want rows*Dim = %d*%d", d.name(), len(d.X), m, d.Dim)
	case d.Names != nil && len(d.Names) != d.Dim:
		return fmt.Errorf("dataset %s: %d names for Dim = %d features", d.name(), len(d.Names), d.Dim)
	case d.QID != nil && len(d.QID) != m:
		return fmt.Errorf("dataset %s: %d query ids for %d rows", d.name(), len(d.QID), m)
	}
	return nil
}

// name returns Source, or a placeholder when it is empty.
func (d *Dataset) name() string {
	if d.Source == "" {
		return "(unnamed)"
	}
	return d.Source
}

// Subset returns a new Dataset holding the given rows of d, in the given
// order, with its own copies of the values. Names, LabelName and Source are
// shared; QID is subset too. It returns an error if d is malformed (see
// Validate; values are not scanned) or a row index is out of range.
func (d *Dataset) Subset(rows []int) (*Dataset, error) {
	if err := d.checkShape(); err != nil {
		return nil, err
	}
	m := d.Rows()
	s := &Dataset{
		X:         make([]float64, 0, len(rows)*d.Dim),
		Y:         make([]float64, 0, len(rows)),
		Dim:       d.Dim,
		Names:     d.Names,
		LabelName: d.LabelName,
		Source:    d.Source,
	}
	if d.QID != nil {
		s.QID = make([]int64, 0, len(rows))
	}
	for _, k := range rows {
		if k < 0 || k >= m {
			return nil, fmt.Errorf("dataset %s: row %d out of range [0, %d)", d.name(), k, m)
		}
		s.X = append(s.X, d.Row(k)...)
		s.Y = append(s.Y, d.Y[k])
		if d.QID != nil {
			s.QID = append(s.QID, d.QID[k])
		}
	}
	return s, nil
}

// Column returns the 0-based index of the feature called name: the
// position of name in Names, or, when the data set has no names (LIBSVM),
// name read as a 1-based LIBSVM feature index "1" .. Dim. It returns an
// error listing what was available when there is no such feature, or when
// the name is given to two features.
func (d *Dataset) Column(name string) (int, error) {
	if d.Names == nil {
		if k, err := strconv.Atoi(name); err == nil && strconv.Itoa(k) == name && k >= 1 && k <= d.Dim {
			return k - 1, nil
		}
		return 0, fmt.Errorf("dataset %s: no feature %q: the data have no column names, so a feature is named by its LIBSVM index 1 .. %d", d.name(), name, d.Dim)
	}
	found := -1
	for j, s := range d.Names {
		if s != name {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("dataset %s: feature name %q is ambiguous: columns %d and %d (0-based features) share it", d.name(), name, found, j)
		}
		found = j
	}
	if found < 0 {
		return 0, fmt.Errorf("dataset %s: no feature named %q; features: %s", d.name(), name, listNames(d.Names))
	}
	return found, nil
}

// listNames formats up to 20 names for an error message.
func listNames(names []string) string {
	const most = 20
	s := ""
	for j, n := range names {
		if j == most {
			s += fmt.Sprintf(", ... (%d in all)", len(names))
			break
		}
		if j > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", n)
	}
	return s
}

// DropColumn returns a copy of d without feature j (0-based), e.g. the
// column the rows were grouped by. It fails if j is out of range or d has
// a single feature.
func (d *Dataset) DropColumn(j int) (*Dataset, error) {
	if err := d.checkShape(); err != nil {
		return nil, err
	}
	if j < 0 || j >= d.Dim {
		return nil, fmt.Errorf("dataset %s: drop feature %d, want 0 <= j < %d", d.name(), j, d.Dim)
	}
	if d.Dim == 1 {
		return nil, fmt.Errorf("dataset %s: cannot drop the only feature", d.name())
	}
	m, n := d.Rows(), d.Dim-1
	s := &Dataset{
		X:         make([]float64, 0, m*n),
		Y:         append([]float64(nil), d.Y...),
		Dim:       n,
		LabelName: d.LabelName,
		Source:    d.Source,
	}
	if d.QID != nil {
		s.QID = append([]int64(nil), d.QID...)
	}
	if d.Names != nil {
		s.Names = append(append([]string(nil), d.Names[:j]...), d.Names[j+1:]...)
	}
	for k := range m {
		r := d.Row(k)
		s.X = append(append(s.X, r[:j]...), r[j+1:]...)
	}
	return s, nil
}

// ParseError is a malformed input: the file, the 1-based line and, where it
// helps, the 1-based byte column (0 when not known), and what was wrong and
// expected. Its Error method reads "file:line:column: message".
type ParseError struct {
	File   string
	Line   int
	Column int
	Msg    string
	// Err is the underlying error, if any (e.g. from gzip or a read).
	Err error
}

// Error formats the error as file:line[:column]: message.
func (e *ParseError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			pos += fmt.Sprintf(":%d", e.Column)
		}
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", pos, e.Msg, e.Err)
	}
	return pos + ": " + e.Msg
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrTooLarge is wrapped by the readers' errors when the dense matrix
// would exceed the configured MaxValues.
var ErrTooLarge = errors.New("dense data set too large")

// DefaultMaxValues is the default bound on M*Dim, the number of values a
// reader may allocate (2^28 float64 values, 2 GiB).
const DefaultMaxValues = 1 << 28
