package datafile

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/dataset"
)

// TestValueJSON: NaN is written null, the infinities "inf" and "-inf",
// every finite value in its shortest exact form, and each reads back to
// the same bits.
func TestValueJSON(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -0.1, 1.0 / 3, 5e-324, math.MaxFloat64} {
		b, err := json.Marshal(Value(v))
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if math.Float64bits(float64(back)) != math.Float64bits(v) && !(math.IsNaN(v) && math.IsNaN(float64(back))) {
			t.Errorf("%v: written %s, read back %v", v, b, float64(back))
		}
	}
	if b, _ := json.Marshal(Value(math.NaN())); string(b) != "null" {
		t.Errorf("NaN written %s, want null", b)
	}
	var v Value
	if err := json.Unmarshal([]byte(`"nan"`), &v); err == nil || !strings.Contains(err.Error(), "null") {
		t.Errorf(`"nan": %v, want an error naming what is allowed`, err)
	}
}

// TestExportFiles: the files of an export are recorded in the order
// written, rows in the export's format, CSV numbers read back exactly,
// an existing file and a column name with a comma are refused, and
// problem.json holds the manifest with <, > and & as they are.
func TestExportFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewExport(dir, "parquet", Manifest{}); err == nil {
		t.Error("format parquet accepted")
	}
	e, err := NewExport(dir, dataset.FormatCSV, Manifest{Kind: "k"})
	if err != nil {
		t.Fatal(err)
	}
	d := &dataset.Dataset{X: []float64{0.1, 1.0 / 3}, Y: []float64{-1}, Dim: 2}
	name, err := e.WriteRows("agent-0", d)
	if err != nil || name != "agent-0.csv" {
		t.Fatalf("WriteRows: %q, %v", name, err)
	}
	back, err := dataset.LoadCSV(filepath.Join(dir, name), dataset.CSVOptions{Header: true})
	if err != nil || back.X[1] != 1.0/3 || back.Y[0] != -1 {
		t.Errorf("rows read back %+v, %v", back, err)
	}
	if err := e.WriteCSV("c.csv", []string{"rhs", "w1"}, [][]float64{{1, 2e-17}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.csv")); string(b) != "rhs,w1\n1,2e-17\n" {
		t.Errorf("c.csv = %q", b)
	}
	if err := e.WriteCSV("c.csv", []string{"x"}, nil); err == nil {
		t.Error("an existing file was overwritten")
	}
	if err := e.WriteCSV("d.csv", []string{"a,b"}, nil); err == nil {
		t.Error("a column name with a comma was accepted")
	}
	if want := []string{"agent-0.csv", "c.csv"}; strings.Join(e.Manifest.Files, " ") != strings.Join(want, " ") {
		t.Errorf("Files = %v, want %v", e.Manifest.Files, want)
	}
	e.Manifest.Objective = "x >= 0 & y < 1"
	e.Manifest.FStar = Value(math.NaN())
	if err := e.WriteManifest(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"x >= 0 & y < 1"`) || !strings.Contains(string(b), `"f_star": null`) {
		t.Errorf("problem.json:\n%s", b)
	}
}
