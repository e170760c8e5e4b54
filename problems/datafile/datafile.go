// Package datafile holds what the problem families share about data
// files: the shape of a users' data file (its rows and features) read
// without parsing the values, for the memory estimate of a scenario; the
// rendering of a problem block without the keys that do not apply to its
// source of rows (a file or the generator); and the export directory of
// `consim data export` (Export), its files and its manifest problem.json
// (Manifest), which every family's export writes.
//
// datafile may import dataset and the YAML library; it must not import
// consensus, an algorithm package, node, coordinator, scenarios or cmd.
package datafile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/dataset"
)

// Shape returns the number of examples of the data file fs describes and
// its feature count, as dataset would load it: for a LIBSVM file the
// non-blank, non-comment lines and fs.Dim (0: the highest feature index);
// for a CSV file the records after the header and the fields of the first
// record less the label. It reads the whole file (gzip or not) but parses
// only what the shape needs, so it costs a fraction of loading it; a
// malformed file is loading's to report, Shape may count it anyway.
func Shape(fs dataset.FileSpec) (rows, features int, err error) {
	lo, co, err := fs.Options()
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Open(fs.Path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r, err := text(f)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", fs.Path, err)
	}
	if fs.Resolved() == dataset.FormatCSV {
		return csvShape(r, co)
	}
	return libsvmShape(r, lo.Dim)
}

// text returns r, or its decompressed content when r starts with the gzip
// magic bytes.
func text(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if !bytes.Equal(head, []byte{0x1f, 0x8b}) {
		return br, nil
	}
	return gzip.NewReader(br)
}

// libsvmShape counts the examples of a LIBSVM text and its highest
// feature index (the last index of a line, indices being ascending), or
// dim when it is given.
func libsvmShape(r io.Reader, dim int) (rows, features int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	for sc.Scan() {
		line := sc.Bytes()
		if c := bytes.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		rows++
		if dim > 0 || len(fields) < 2 {
			continue
		}
		last := fields[len(fields)-1]
		if c := bytes.IndexByte(last, ':'); c > 0 {
			if j, err := strconv.Atoi(string(last[:c])); err == nil {
				features = max(features, j)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if dim > 0 {
		features = dim
	}
	return rows, features, nil
}

// csvShape counts the records of a CSV text after the header and the
// fields of its first record, less the label column.
func csvShape(r io.Reader, opt dataset.CSVOptions) (rows, features int, err error) {
	cr := csv.NewReader(r)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.Comment = opt.Comment
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, err
		}
		if features == 0 {
			features = len(rec) - 1
		}
		rows++
	}
	if opt.Header && rows > 0 {
		rows--
	}
	return rows, features, nil
}

// Without renders block, a problem's parameter struct (as a value of a
// type without its own MarshalYAML), as a YAML mapping without the keys
// named in omit: those that do not apply to the block's source of rows
// and hold their defaults, so that parsing the output gives the block
// again.
func Without(block any, omit ...string) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(block); err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode || len(omit) == 0 {
		return &n, nil
	}
	drop := make(map[string]bool, len(omit))
	for _, k := range omit {
		drop[k] = true
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !drop[n.Content[i].Value] {
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
	}
	n.Content = kept
	return &n, nil
}
