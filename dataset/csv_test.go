package dataset

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  CSVOptions
		want Dataset
	}{
		{
			name: "no header, label first",
			in:   "1,2,3\n-1,4.5,6e-1\n",
			want: Dataset{X: []float64{2, 3, 4.5, 0.6}, Y: []float64{1, -1}, Dim: 2},
		},
		{
			name: "header, label by name in the middle",
			in:   "a,y,b\n1,0,2\n3,1,4\n",
			opt:  CSVOptions{Header: true, Label: "y"},
			want: Dataset{X: []float64{1, 2, 3, 4}, Y: []float64{0, 1}, Dim: 2, Names: []string{"a", "b"}, LabelName: "y"},
		},
		{
			name: "label last by negative index, spaces, blank lines, CRLF",
			in:   "\r\n 1, 2 ,  3\r\n\r\n4,5,6\r\n",
			opt:  CSVOptions{LabelIndex: -1},
			want: Dataset{X: []float64{1, 2, 4, 5}, Y: []float64{3, 6}, Dim: 2},
		},
		{
			name: "semicolon, comments, quoted header and field",
			in:   "# exported\n\"x;1\";label\n\"7\";8\n# end\n",
			opt:  CSVOptions{Comma: ';', Comment: '#', Header: true, LabelIndex: 1},
			want: Dataset{X: []float64{7}, Y: []float64{8}, Dim: 1, Names: []string{"x;1"}, LabelName: "label"},
		},
		{
			name: "tab",
			in:   "1\t2\n3\t4",
			opt:  CSVOptions{Comma: '\t', LabelIndex: 1},
			want: Dataset{X: []float64{1, 3}, Y: []float64{2, 4}, Dim: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, compressed := range []bool{false, true} {
				in := []byte(tc.in)
				if compressed {
					in = gzipText(t, tc.in)
				}
				d, err := ReadCSV(bytes.NewReader(in), tc.opt)
				if err != nil {
					t.Fatalf("gzip=%v: %v", compressed, err)
				}
				if !sameBits(d.X, tc.want.X) || !sameBits(d.Y, tc.want.Y) || d.Dim != tc.want.Dim ||
					!reflect.DeepEqual(d.Names, tc.want.Names) || d.LabelName != tc.want.LabelName {
					t.Errorf("gzip=%v: got %+v, want %+v", compressed, *d, tc.want)
				}
				if err := d.Validate(); err != nil {
					t.Errorf("Validate: %v", err)
				}
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  CSVOptions
		want string // prefix of the error
	}{
		{"not a number with header", "y,age,job\n1,2,3\n0,5,clerk\n", CSVOptions{Header: true}, `f.csv:3:5: field 3 ("job") = "clerk" is not a finite number`},
		{"not a number", "1,2\n1,x\n", CSVOptions{}, `f.csv:2:3: field 2 = "x" is not a finite number`},
		{"empty field", "1,2\n1, \n", CSVOptions{}, `f.csv:2:4: field 2 is empty, want a finite number`},
		{"nan", "1,nan\n", CSVOptions{}, `f.csv:1:3: field 2 = "nan" is not a finite number`},
		{"too few fields", "1,2,3\n1,2\n", CSVOptions{}, `f.csv:2: 2 fields, want 3 as in the first record (line 1)`},
		{"too many fields", "a,b\n1,2\n1,2,3\n", CSVOptions{Header: true}, `f.csv:3: 3 fields, want 2 as in the header (line 1)`},
		{"label name missing", "a,b\n1,2\n", CSVOptions{Header: true, Label: "y"}, `f.csv:1: no column named "y" for the label; columns: "a", "b"`},
		{"label name ambiguous", "y,y\n1,2\n", CSVOptions{Header: true, Label: "y"}, `f.csv:1: label column name "y" is ambiguous`},
		{"label name without header", "1,2\n", CSVOptions{Label: "y"}, `dataset: f.csv: label column named "y" but the CSV options say there is no header`},
		{"label index out of range", "1,2\n", CSVOptions{LabelIndex: 2}, `f.csv:1: label column index 2 is out of range for 2 columns (want -2 .. 1)`},
		{"label negative index out of range", "1,2\n", CSVOptions{LabelIndex: -3}, `f.csv:1: label column index -3 is out of range`},
		{"one column", "1\n2\n", CSVOptions{}, `f.csv:1: 1 column(s), want at least 2 (a label and a feature); is the delimiter ',' right?`},
		{"wrong delimiter", "1;2\n", CSVOptions{}, `f.csv:1: 1 column(s), want at least 2`},
		{"empty", "", CSVOptions{}, `f.csv: no data rows`},
		{"empty with header", "", CSVOptions{Header: true}, `f.csv: empty file: want a header line and at least one row`},
		{"header only", "a,b\n", CSVOptions{Header: true}, `f.csv: no data rows`},
		{"bare quote", "1,2\n1,2\"3\n", CSVOptions{}, `f.csv:2:4: malformed CSV: bare " in non-quoted-field`},
		{"bad delimiter", "1,2\n", CSVOptions{Comma: '"'}, `dataset: f.csv: CSV delimiter '"' is not allowed`},
		{"comment equals delimiter", "1,2\n", CSVOptions{Comment: ','}, `dataset: f.csv: CSV comment character ',' is not allowed`},
		{"too many values", "1,2,3\n1,2,3\n1,2,3\n", CSVOptions{MaxValues: 5}, `f.csv:3: more than MaxValues = 5 values: dense data set too large`},
		{"bad gzip", "\x1f\x8b\x08", CSVOptions{}, `f.csv: file starts with the gzip magic bytes but is not a valid gzip stream`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Name = "f.csv"
			_, err := ReadCSV(strings.NewReader(tc.in), tc.opt)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant\n  %s", err, tc.want)
			}
			if strings.Contains(tc.want, "too large") && !errors.Is(err, ErrTooLarge) {
				t.Errorf("error %v does not wrap ErrTooLarge", err)
			}
		})
	}
}

// TestAdultCSVError reads the real Adult file, whose categorical columns
// are not numbers: the error names the file, line 1, the column and the
// offending field.
func TestAdultCSVError(t *testing.T) {
	const path = "/work/shared/data/adult/adult.data.gz"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("adult not available: %v", err)
	}
	_, err := LoadCSV(path, CSVOptions{LabelIndex: -1})
	want := path + `:1:5: field 2 = "State-gov" is not a finite number`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		d := randomDataset(rng, 1+rng.IntN(30), 1+rng.IntN(12), false)
		header := trial%2 == 0
		if header && trial%4 == 0 {
			d.Names = make([]string, d.Dim)
			for j := range d.Names {
				d.Names[j] = strings.Repeat("n,\"", j%3) + string(rune('a'+j))
			}
			d.LabelName = "the label"
		}
		comma := []rune{',', ';', '\t', '|'}[trial%4]
		var b bytes.Buffer
		if err := WriteCSV(&b, d, CSVWriteOptions{Comma: comma, Header: header}); err != nil {
			t.Fatal(err)
		}
		e, err := ReadCSV(&b, CSVOptions{Comma: comma, Header: header})
		if err != nil {
			t.Fatalf("trial %d: read back: %v", trial, err)
		}
		if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) || d.Dim != e.Dim {
			t.Fatalf("trial %d: round trip changed the data", trial)
		}
		if d.Names != nil && (!reflect.DeepEqual(d.Names, e.Names) || d.LabelName != e.LabelName) {
			t.Fatalf("trial %d: names %q / %q, want %q / %q", trial, e.Names, e.LabelName, d.Names, d.LabelName)
		}
		if header && d.Names == nil && (e.LabelName != "label" || e.Names[0] != "x1") {
			t.Fatalf("trial %d: generated names %q / %q, want label, x1, ...", trial, e.LabelName, e.Names)
		}
	}
}

func TestSaveCSV(t *testing.T) {
	dir := t.TempDir()
	d := randomDataset(rand.New(rand.NewPCG(7, 8)), 25, 4, false)
	for _, name := range []string{"d.csv", "d.csv.gz"} {
		path := filepath.Join(dir, name)
		if err := SaveCSV(path, d, CSVWriteOptions{Header: true}); err != nil {
			t.Fatal(err)
		}
		e, err := LoadCSV(path, CSVOptions{Header: true, Label: "label"})
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) {
			t.Errorf("%s: round trip changed the data", name)
		}
		if err := SaveCSV(path, d, CSVWriteOptions{}); err == nil {
			t.Errorf("%s: second save overwrote the file", name)
		}
	}
	if err := WriteCSV(&bytes.Buffer{}, &Dataset{Dim: 1}, CSVWriteOptions{}); err == nil {
		t.Error("WriteCSV of an empty data set: no error")
	}
}

// TestLIBSVMToCSV converts a data set from one format to the other and
// back: the values survive bit for bit.
func TestLIBSVMToCSV(t *testing.T) {
	d := randomDataset(rand.New(rand.NewPCG(9, 10)), 50, 7, false)
	var svm, csv bytes.Buffer
	if err := WriteLIBSVM(&svm, d); err != nil {
		t.Fatal(err)
	}
	a, err := ReadLIBSVM(&svm, LIBSVMOptions{Dim: d.Dim})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, a, CSVWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := ReadCSV(&csv, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(d.X, b.X) || !sameBits(d.Y, b.Y) {
		t.Error("LIBSVM -> CSV changed the data")
	}
}
