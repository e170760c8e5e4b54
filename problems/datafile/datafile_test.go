package datafile

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/dataset"
)

// write writes data to dir/name, gzip-compressed when name ends in .gz.
func write(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	b := []byte(data)
	if filepath.Ext(name) == ".gz" {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		b = z.Bytes()
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShapeAgreesWithLoad: the shape of LIBSVM and CSV files, gzip or
// not, with blank and comment lines, a header, a label column anywhere
// and a given LIBSVM dim, is the shape dataset loads.
func TestShapeAgreesWithLoad(t *testing.T) {
	dir := t.TempDir()
	svm := "1 qid:1 1:0.5 3:1\n# a comment\n\n-1 qid:2 2:2 7:1 # trailing\n1 qid:3 4:1\n"
	csv := "a,y,b,c\n1,2,3,4\n5,6,7,8\n\n9,10,11,12\n"
	for _, fs := range []dataset.FileSpec{
		{Path: write(t, dir, "a.svm", svm)},
		{Path: write(t, dir, "b.svm.gz", svm)},
		{Path: write(t, dir, "c.svm", svm), Dim: 12},
		{Path: write(t, dir, "d.csv", csv), Header: true, Label: "y"},
		{Path: write(t, dir, "e.csv.gz", csv), Header: true, Label: "1"},
		{Path: write(t, dir, "f.tsv", "1\t2\n3\t4\n")},
	} {
		rows, features, err := Shape(fs)
		if err != nil {
			t.Fatalf("%s: %v", fs.Path, err)
		}
		d, err := fs.Load()
		if err != nil {
			t.Fatalf("%s: load: %v", fs.Path, err)
		}
		if rows != d.Rows() || features != d.Dim {
			t.Errorf("%s: shape %d x %d, loaded %d x %d", filepath.Base(fs.Path), rows, features, d.Rows(), d.Dim)
		}
	}
	if _, _, err := Shape(dataset.FileSpec{Path: filepath.Join(dir, "missing.svm")}); err == nil {
		t.Error("a missing file has a shape")
	}
}

// TestWithout: the named keys leave the mapping, the others keep their
// order and style.
func TestWithout(t *testing.T) {
	type block struct {
		A   int        `yaml:"a"`
		B   string     `yaml:"b"`
		Box [2]float64 `yaml:"box,flow"`
	}
	n, err := Without(block{A: 1, B: "x", Box: [2]float64{-1, 1}}, "b", "nope")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < len(n.Content); i += 2 {
		got = append(got, n.Content[i].Value)
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "box" || n.Content[3].Style == 0 {
		t.Errorf("keys %v (box style %v), want a and box in flow style", got, n.Content[3].Style)
	}
}
