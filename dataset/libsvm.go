package dataset

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
)

// LIBSVMOptions configures ReadLIBSVM. The zero value reads any file with
// the feature count taken from the data.
type LIBSVMOptions struct {
	// Name is the file name used in error messages (LoadLIBSVM sets it to
	// the path when empty).
	Name string
	// Dim, if > 0, is the number of features n: an index above it is an
	// error, and a file whose highest index is lower still gets n
	// columns (so a training and a test file agree). If 0, n is the
	// highest index seen.
	Dim int
	// MaxValues bounds M*n, the size of the dense matrix; 0 means
	// DefaultMaxValues. Sparse files with huge indices are refused rather
	// than exhausting memory.
	MaxValues int
}

// LoadLIBSVM reads the LIBSVM file at path; see ReadLIBSVM.
func LoadLIBSVM(path string, opt LIBSVMOptions) (*Dataset, error) {
	if opt.Name == "" {
		opt.Name = path
	}
	return loadFile(path, func(r io.Reader) (*Dataset, error) { return ReadLIBSVM(r, opt) })
}

// ReadLIBSVM reads examples in the LIBSVM / SVMlight sparse text format,
// gzip-compressed or not (detected from the first bytes), one example a
// line:
//
//	<label> [qid:<q>] <index>:<value> <index>:<value> ... [# comment]
//
// The label and the values are decimal floating-point numbers (anything
// strconv.ParseFloat reads, finite); the indices are 1-based, strictly
// ascending integers; features not listed are 0. Blank lines and lines
// holding only a comment are skipped. qid must come right after the label
// and be on every example or on none. Feature index j becomes column j-1
// of X.
//
// Any malformed line gives a *ParseError naming the file, line and byte
// column, e.g. `a9a.gz:17:5: feature index "0" is not a positive integer
// (LIBSVM indices start at 1)`.
func ReadLIBSVM(r io.Reader, opt LIBSVMOptions) (*Dataset, error) {
	name := opt.Name
	if name == "" {
		name = "(libsvm)"
	}
	maxValues := opt.MaxValues
	if maxValues <= 0 {
		maxValues = DefaultMaxValues
	}
	if opt.Dim < 0 {
		return nil, fmt.Errorf("dataset: %s: LIBSVMOptions.Dim = %d, want >= 0 (0: the highest index seen)", name, opt.Dim)
	}
	if opt.Dim > maxValues {
		return nil, fmt.Errorf("dataset: %s: LIBSVMOptions.Dim = %d exceeds MaxValues = %d: %w", name, opt.Dim, maxValues, ErrTooLarge)
	}
	br, err := textInput(r, name)
	if err != nil {
		return nil, err
	}
	lr := &lineReader{br: br}
	// The examples are gathered sparsely (the width is known only at the
	// end unless Dim is given), then laid out densely.
	var (
		labels []float64
		qids   []int64
		start  = []int{0} // start[k] is the first entry of row k
		index  []int      // 0-based column of each entry
		values []float64
		dim    = opt.Dim
	)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &ParseError{File: name, Line: lr.line + 1, Msg: "read", Err: err}
		}
		perr := func(col int, format string, a ...any) error {
			return &ParseError{File: name, Line: lr.line, Column: col + 1, Msg: fmt.Sprintf(format, a...)}
		}
		if c := bytes.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		tok := tokenizer{s: line}
		col, t := tok.next()
		if t == nil {
			continue // blank or comment-only line
		}
		y, ok := parseFinite(t)
		if !ok {
			return nil, perr(col, "label %q is not a finite number", t)
		}
		k := len(labels)
		labels = append(labels, y)
		prev := 0
		hasQID := false
		for {
			col, t = tok.next()
			if t == nil {
				break
			}
			c := bytes.IndexByte(t, ':')
			if c < 0 {
				return nil, perr(col, "feature %q is not index:value", t)
			}
			key, val := t[:c], t[c+1:]
			if string(key) == "qid" {
				if prev > 0 || hasQID {
					return nil, perr(col, "qid %q must come right after the label, once", t)
				}
				q, err := strconv.ParseInt(string(val), 10, 64)
				if err != nil {
					return nil, perr(col+c+1, "qid %q is not an integer", val)
				}
				if k > 0 && qids == nil {
					return nil, perr(col, "qid on this example but not on the ones before it (qid must be on every example or none)")
				}
				qids = append(qids, q)
				hasQID = true
				continue
			}
			j, err := strconv.ParseUint(string(key), 10, 63)
			if err != nil || j == 0 {
				return nil, perr(col, "feature index %q is not a positive integer (LIBSVM indices start at 1)", key)
			}
			if int(j) <= prev {
				return nil, perr(col, "feature index %d follows %d: indices must be strictly ascending", j, prev)
			}
			if opt.Dim > 0 && int(j) > opt.Dim {
				return nil, perr(col, "feature index %d exceeds the feature count %d given for this file", j, opt.Dim)
			}
			if j > uint64(maxValues) {
				return nil, &ParseError{File: name, Line: lr.line, Column: col + 1,
					Msg: fmt.Sprintf("feature index %d exceeds MaxValues = %d", j, maxValues), Err: ErrTooLarge}
			}
			v, ok := parseFinite(val)
			if !ok {
				return nil, perr(col+c+1, "value %q of feature %d is not a finite number", val, j)
			}
			prev = int(j)
			index = append(index, int(j)-1)
			values = append(values, v)
		}
		if qids != nil && !hasQID {
			return nil, perr(0, "example without qid after examples with one (qid must be on every example or none)")
		}
		start = append(start, len(index))
		if prev > dim {
			dim = prev
		}
	}
	m := len(labels)
	if m == 0 {
		return nil, &ParseError{File: name, Msg: "no examples (every line is blank or a comment)"}
	}
	if dim == 0 {
		return nil, &ParseError{File: name, Msg: "no features: every example is empty; give LIBSVMOptions.Dim for all-zero data"}
	}
	if dim > maxValues/m {
		return nil, &ParseError{File: name,
			Msg: fmt.Sprintf("dense matrix of %d rows x %d features exceeds MaxValues = %d", m, dim, maxValues), Err: ErrTooLarge}
	}
	d := &Dataset{X: make([]float64, m*dim), Y: labels, Dim: dim, QID: qids, Source: name}
	for k := range m {
		row := d.X[k*dim : (k+1)*dim]
		for p := start[k]; p < start[k+1]; p++ {
			row[index[p]] = values[p]
		}
	}
	return d, nil
}

// tokenizer splits a line at spaces and tabs.
type tokenizer struct {
	s   []byte
	pos int
}

// next returns the next token and its 0-based byte offset, or nil at the
// end of the line.
func (t *tokenizer) next() (int, []byte) {
	for t.pos < len(t.s) && (t.s[t.pos] == ' ' || t.s[t.pos] == '\t') {
		t.pos++
	}
	if t.pos == len(t.s) {
		return t.pos, nil
	}
	begin := t.pos
	for t.pos < len(t.s) && t.s[t.pos] != ' ' && t.s[t.pos] != '\t' {
		t.pos++
	}
	return begin, t.s[begin:t.pos]
}

// parseFinite parses a finite float64.
func parseFinite(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// WriteLIBSVM writes d in the LIBSVM format ReadLIBSVM reads: one line
// per row, the label, "qid:<q>" when d has query ids, then "j:v" for every
// feature whose value is not +0 (so -0 is kept), j 1-based. Numbers are
// formatted by strconv.FormatFloat(v, 'g', -1, 64), the shortest text that
// parses back to the same bits, so reading the output with
// LIBSVMOptions{Dim: d.Dim} gives d's values bit for bit. It fails if d is
// not valid.
func WriteLIBSVM(w io.Writer, d *Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	buf := make([]byte, 0, 1024)
	for k := range d.Rows() {
		buf = strconv.AppendFloat(buf[:0], d.Y[k], 'g', -1, 64)
		if d.QID != nil {
			buf = append(buf, " qid:"...)
			buf = strconv.AppendInt(buf, d.QID[k], 10)
		}
		for j, v := range d.Row(k) {
			if math.Float64bits(v) == 0 {
				continue
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("dataset: write LIBSVM row %d: %w", k, err)
		}
	}
	return nil
}

// SaveLIBSVM writes d to a new file at path with WriteLIBSVM,
// gzip-compressed when path ends in ".gz". It refuses to overwrite an
// existing file.
func SaveLIBSVM(path string, d *Dataset) error {
	return saveFile(path, func(w io.Writer) error { return WriteLIBSVM(w, d) })
}
