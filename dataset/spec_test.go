package dataset

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFileSpecOptions(t *testing.T) {
	tests := []struct {
		spec FileSpec
		lo   LIBSVMOptions
		co   CSVOptions
	}{
		{FileSpec{Path: "a9a.gz", Dim: 123}, LIBSVMOptions{Name: "a9a.gz", Dim: 123}, CSVOptions{}},
		{FileSpec{Path: "x.svm", Format: "libsvm"}, LIBSVMOptions{Name: "x.svm"}, CSVOptions{}},
		{FileSpec{Path: "d.CSV.gz"}, LIBSVMOptions{}, CSVOptions{Name: "d.CSV.gz"}},
		{FileSpec{Path: "d.tsv"}, LIBSVMOptions{}, CSVOptions{Name: "d.tsv", Comma: '\t'}},
		{FileSpec{Path: "d.txt", Format: "csv", Label: "-1", Delimiter: ";", Comment: "#"}, LIBSVMOptions{}, CSVOptions{Name: "d.txt", Comma: ';', Comment: '#', LabelIndex: -1}},
		{FileSpec{Path: "d.csv", Header: true, Label: "income", Delimiter: "tab"}, LIBSVMOptions{}, CSVOptions{Name: "d.csv", Comma: '\t', Header: true, Label: "income"}},
		{FileSpec{Path: "d.csv", Header: true, Label: "3"}, LIBSVMOptions{}, CSVOptions{Name: "d.csv", Header: true, LabelIndex: 3}},
	}
	for _, tc := range tests {
		lo, co, err := tc.spec.Options()
		if err != nil {
			t.Errorf("%+v: %v", tc.spec, err)
			continue
		}
		if lo != tc.lo || co != tc.co {
			t.Errorf("%+v: options %+v, %+v; want %+v, %+v", tc.spec, lo, co, tc.lo, tc.co)
		}
	}
	bad := []struct {
		spec FileSpec
		want string
	}{
		{FileSpec{}, "dataset: data path is empty"},
		{FileSpec{Path: "a.svm", Label: "y"}, `dataset: a.svm: label "y" given for a LIBSVM file`},
		{FileSpec{Path: "a.svm", Header: true}, "dataset: a.svm: header, delimiter and comment are CSV options"},
		{FileSpec{Path: "a.svm", Dim: -2}, "dataset: a.svm: dim = -2, want >= 0"},
		{FileSpec{Path: "a.csv", Dim: 3}, "dataset: a.csv: dim = 3 is a LIBSVM option"},
		{FileSpec{Path: "a.csv", Label: "y"}, `dataset: a.csv: label column "y" is a name but header is false`},
		{FileSpec{Path: "a.csv", Delimiter: ";;"}, `dataset: delimiter ";;", want one character`},
		{FileSpec{Path: "a.csv", Comment: "//"}, `dataset: comment "//", want one character`},
		{FileSpec{Path: "a.dat", Format: "arff"}, `dataset: a.dat: format "arff" unknown; want libsvm or csv`},
	}
	for _, tc := range bad {
		_, _, err := tc.spec.Options()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.spec, err, tc.want)
		}
		if _, err := tc.spec.Load(); err == nil {
			t.Errorf("%+v: Load gave no error", tc.spec)
		}
	}
}

// TestSaveShardsAndLoad exports shards in both formats through SaveShards
// and reads them back through FileSpec.Load: every shard comes back bit
// for bit.
func TestSaveShardsAndLoad(t *testing.T) {
	dir := t.TempDir()
	d := randomDataset(rand.New(rand.NewPCG(13, 14)), 31, 5, false)
	d.Names = []string{"a", "b", "c", "d", "e"}
	d.LabelName = "y"
	shards, err := Sharding{Method: ShardRandom, Seed: 8}.Split(d, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, pattern string }{
		{FormatLIBSVM, "s-%d.svm"},
		{FormatCSV, "s-%02d.csv.gz"},
	} {
		paths, err := SaveShards(filepath.Join(dir, tc.pattern), shards, tc.format)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 4 {
			t.Fatalf("%d paths, want 4", len(paths))
		}
		for i, p := range paths {
			spec := FileSpec{Path: p, Dim: d.Dim}
			if tc.format == FormatCSV {
				spec = FileSpec{Path: p, Header: true, Label: "y"}
			}
			e, err := spec.Load()
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(e.X, shards[i].X) || !sameBits(e.Y, shards[i].Y) {
				t.Errorf("%s: shard %d changed", p, i)
			}
			if tc.format == FormatCSV && !reflect.DeepEqual(e.Names, d.Names) {
				t.Errorf("%s: names %v, want %v", p, e.Names, d.Names)
			}
		}
		if _, err := SaveShards(filepath.Join(dir, tc.pattern), shards, tc.format); err == nil {
			t.Errorf("%s: exporting twice overwrote the files", tc.pattern)
		}
	}
	for _, pattern := range []string{"none.svm", "%d-%d.svm", "%s.svm"} {
		if _, err := SaveShards(filepath.Join(dir, pattern), shards, FormatLIBSVM); err == nil || !strings.Contains(err.Error(), "want one integer verb") {
			t.Errorf("pattern %q: error %v", pattern, err)
		}
	}
	if err := Save(filepath.Join(dir, "x.arff"), d, "arff"); err == nil {
		t.Error("Save in format arff: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.arff")); err == nil {
		t.Error("Save in an unknown format created a file")
	}
}
