package datafile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/consim/consim/dataset"
)

// Export is a directory being written by `consim data export`: a problem
// family's files and the manifest problem.json that says what they hold,
// the exact objective and the reference values consim computed, so that a
// solver outside consim can rebuild the problem and check them. A family
// writes its files with the methods below (each name a plain file name,
// recorded in Manifest.Files in the order written) and fills Manifest's
// problem fields. The caller creates the directory, hands NewExport the
// manifest with the run's fields (Scenario, Kind, Agents, Seed) filled
// in, and writes problem.json (WriteManifest) after the family's export.
type Export struct {
	dir    string
	format string
	// Manifest is problem.json as it is being filled in.
	Manifest Manifest
}

// NewExport returns an Export into the existing directory dir whose files
// of rows are written in format (dataset.FormatLIBSVM or FormatCSV).
func NewExport(dir, format string, m Manifest) (*Export, error) {
	if _, ok := RowExt(format); !ok {
		return nil, fmt.Errorf("export: row format %q unknown; want libsvm or csv", format)
	}
	return &Export{dir: dir, format: format, Manifest: m}, nil
}

// RowExt is the file extension of the files of rows in format: svm for
// LIBSVM, csv for CSV.
func RowExt(format string) (string, bool) {
	ext, ok := map[string]string{dataset.FormatLIBSVM: "svm", dataset.FormatCSV: "csv"}[format]
	return ext, ok
}

// RowFile is base with the extension of the export's row format, e.g.
// "agent-3.svm".
func (e *Export) RowFile(base string) string {
	ext, _ := RowExt(e.format)
	return base + "." + ext
}

// WriteRows writes d as the file RowFile(base) in the export's row format
// (the label first, then the features, every number in the shortest form
// that reads back to the same bits) and returns its name.
func (e *Export) WriteRows(base string, d *dataset.Dataset) (string, error) {
	name := e.RowFile(base)
	if err := dataset.Save(e.path(name), d, e.format); err != nil {
		return "", fmt.Errorf("export %s: %w", name, err)
	}
	e.Manifest.Files = append(e.Manifest.Files, name)
	return name, nil
}

// WriteJSON writes v as the indented JSON file name.
func (e *Export) WriteJSON(name string, v any) error {
	return e.WriteFile(name, func(w io.Writer) error { return encodeJSON(w, v, " ") })
}

// encodeJSON writes v to w as indented JSON, <, > and & as they are.
func encodeJSON(w io.Writer, v any, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	return enc.Encode(v)
}

// WriteFile creates the new file name and fills it with write.
func (e *Export) WriteFile(name string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(e.path(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	e.Manifest.Files = append(e.Manifest.Files, name)
	return nil
}

// WriteCSV writes the file name as CSV: the header, then one record per
// row of rows, each number in the shortest form that reads back to the
// same bits.
func (e *Export) WriteCSV(name string, header []string, rows [][]float64) error {
	return e.WriteFile(name, func(w io.Writer) error {
		line := make([]byte, 0, 256)
		for j, h := range header {
			if strings.ContainsAny(h, ",\"\r\n") {
				return fmt.Errorf("column name %q holds a comma, quote or line break", h)
			}
			if j > 0 {
				line = append(line, ',')
			}
			line = append(line, h...)
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
		for k, r := range rows {
			if len(r) != len(header) {
				return fmt.Errorf("row %d has %d values, the header %d", k, len(r), len(header))
			}
			line = line[:0]
			for j, v := range r {
				if j > 0 {
					line = append(line, ',')
				}
				line = strconv.AppendFloat(line, v, 'g', -1, 64)
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteManifest writes Manifest as problem.json.
func (e *Export) WriteManifest() error {
	var b bytes.Buffer
	if err := encodeJSON(&b, e.Manifest, "  "); err != nil {
		return fmt.Errorf("export %s: %w", ManifestFile, err)
	}
	return os.WriteFile(e.path(ManifestFile), b.Bytes(), 0o644)
}

func (e *Export) path(name string) string { return filepath.Join(e.dir, name) }

// ManifestFile is the name of the manifest in an export directory.
const ManifestFile = "problem.json"

// Manifest is problem.json: what an export directory holds and the
// problem it states. Every number is written in the shortest form that
// reads back to the same bits.
type Manifest struct {
	// Scenario, Kind, Agents and Seed identify the run whose problem was
	// exported.
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Agents   int    `json:"agents"`
	Seed     uint64 `json:"seed"`
	// Dim is n, the length of the agents' common x, when they hold one.
	Dim int `json:"dim,omitempty"`
	// Objective states the problem exactly, in the terms of the files:
	// the function f whose optimum (or bound) FStar is, its weights, its
	// constraints.
	Objective string `json:"objective"`
	// Weighting is how the agents' rows are weighed in f (the regression
	// kinds): "rows" (every row alike) or "agents" (every agent alike).
	Weighting string `json:"weighting,omitempty"`
	// Constants are the problem's constants by the names Objective uses
	// (reg, lambda, c, ...).
	Constants map[string]float64 `json:"constants,omitempty"`
	// Box is X = [lo, hi]^n when the problem has a common box.
	Box *Interval `json:"box,omitempty"`
	// Files lists every file of the directory but problem.json, in the
	// order written; Shards lists the files of the agents' rows, agent i's
	// at index i (empty when the agents do not each hold rows).
	Files  []string `json:"files"`
	Shards []string `json:"shards,omitempty"`
	// FStar is the reference value f* the run's optimality gap is
	// measured against (null when there is none), FStarIs what it is
	// ("optimum", "LP bound", "best of a multistart (nonconvex)", ...,
	// or "none: " and the reason), and XStar the point that attains it,
	// in the coordinates of Objective, when there is one.
	FStar   Value     `json:"f_star"`
	FStarIs string    `json:"f_star_is"`
	XStar   []float64 `json:"x_star,omitempty"`
	// Convex reports whether the problem is convex.
	Convex bool `json:"convex"`
	// References are further reference values by name (lp_bound,
	// binary_optimum, ...); null when not computed, with the reason in
	// Notes.
	References map[string]Value `json:"references,omitempty"`
	// Notes say what a reader needs besides the formula (how the
	// reference was computed, what was left out and why).
	Notes []string `json:"notes,omitempty"`
}

// Value is a number of problem.json: null for NaN (none), "inf" and
// "-inf" for the infinities, which JSON numbers cannot hold.
type Value float64

// MarshalJSON implements json.Marshaler.
func (v Value) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *Value) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null":
		*v = Value(math.NaN())
		return nil
	case `"inf"`:
		*v = Value(math.Inf(1))
		return nil
	case `"-inf"`:
		*v = Value(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("problem.json: %s is not a number, null, \"inf\" or \"-inf\"", b)
	}
	*v = Value(f)
	return nil
}

// Interval is [lo, hi] in problem.json.
type Interval [2]Value

// BoxOf is the Interval [lo, hi].
func BoxOf(lo, hi float64) *Interval { return &Interval{Value(lo), Value(hi)} }
