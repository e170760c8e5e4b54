package dataset

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// fuzzMaxValues keeps the fuzzers' dense matrices small.
const fuzzMaxValues = 1 << 16

// checkReadError fails unless err is a *ParseError or names the file, as
// every reader error must.
func checkReadError(t *testing.T, err error, name string) {
	var pe *ParseError
	if !errors.As(err, &pe) && !bytes.Contains([]byte(err.Error()), []byte(name)) {
		t.Fatalf("error %q is neither a *ParseError nor names %s", err, name)
	}
}

// FuzzLIBSVM feeds arbitrary bytes to ReadLIBSVM: it must not panic, an
// error must be a *ParseError, and a data set it accepts must be valid and
// survive WriteLIBSVM / ReadLIBSVM bit for bit.
func FuzzLIBSVM(f *testing.F) {
	for _, s := range []string{
		"+1 1:0.5 3:-2\n-1 2:1e-3\n",
		"# c\r\n\r\n1\t1:1 2:2 # t\r\n",
		"1 qid:3 1:1\n0 qid:-7 2:5\n",
		"-0 1:-0 2:0x1p-1074\n",
		"1 0:1\n", "1 3:1 2:1\n", "1 :\n", "1 1:nan", "1 qid:1 qid:2",
		"1 99999999999:1", "\x1f\x8b\x08\x00",
		string(gzipText(f, "1 1:1\n-1 2:2\n")),
	} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, dim int) {
		dim %= 64
		if dim < 0 {
			dim = -dim
		}
		d, err := ReadLIBSVM(bytes.NewReader(data), LIBSVMOptions{Name: "fuzz.svm", Dim: dim, MaxValues: fuzzMaxValues})
		if err != nil {
			checkReadError(t, err, "fuzz.svm")
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("accepted an invalid data set: %v", err)
		}
		if dim > 0 && d.Dim != dim {
			t.Fatalf("Dim = %d, want the given %d", d.Dim, dim)
		}
		var b bytes.Buffer
		if err := WriteLIBSVM(&b, d); err != nil {
			t.Fatal(err)
		}
		e, err := ReadLIBSVM(&b, LIBSVMOptions{Dim: d.Dim, MaxValues: fuzzMaxValues})
		if err != nil {
			t.Fatalf("reading back %q: %v", b.String(), err)
		}
		if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) || d.Dim != e.Dim || !reflect.DeepEqual(d.QID, e.QID) {
			t.Fatal("round trip changed the data")
		}
	})
}

// FuzzCSV feeds arbitrary bytes to ReadCSV under a few option sets: it
// must not panic, an error must be a *ParseError or name the file, and a
// data set it accepts must be valid and survive WriteCSV / ReadCSV bit for
// bit (names too).
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"1,2,3\n-1,4.5,6e-1\n",
		"a,y,b\n1,0,2\n3,1,4\n",
		"\r\n 1, 2 ,  3\r\n\r\n4,5,6\r\n",
		"# x\n\"x;1\";label\n\"7\";8\n",
		"1\t2\n3\t4",
		"1,2\n1,2\"3\n", "y,y\n1,2\n", "1\n", "", "a,b\n",
		"\x1f\x8b\x08",
		string(gzipText(f, "y,a\n1,2\n")),
	} {
		for opts := range uint8(8) {
			f.Add([]byte(s), opts, int8(opts%3)-1)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, opts uint8, labelIndex int8) {
		opt := CSVOptions{
			Name:       "fuzz.csv",
			Comma:      []rune{',', ';', '\t', '|'}[opts&3],
			Header:     opts&4 != 0,
			LabelIndex: int(labelIndex),
			MaxValues:  fuzzMaxValues,
		}
		if opts&8 != 0 {
			opt.Comment = '#'
		}
		if opts&16 != 0 && opt.Header {
			opt.Label = "y"
		}
		d, err := ReadCSV(bytes.NewReader(data), opt)
		if err != nil {
			checkReadError(t, err, "fuzz.csv")
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("accepted an invalid data set: %v", err)
		}
		var b bytes.Buffer
		if err := WriteCSV(&b, d, CSVWriteOptions{Comma: opt.Comma, Header: opt.Header}); err != nil {
			t.Fatal(err)
		}
		e, err := ReadCSV(&b, CSVOptions{Comma: opt.Comma, Header: opt.Header, MaxValues: fuzzMaxValues})
		if err != nil {
			t.Fatalf("reading back %q: %v", b.String(), err)
		}
		if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) || d.Dim != e.Dim {
			t.Fatal("round trip changed the data")
		}
		if opt.Header && (!reflect.DeepEqual(d.Names, e.Names) || d.LabelName != e.LabelName) {
			t.Fatalf("round trip changed the names: %q %q -> %q %q", d.LabelName, d.Names, e.LabelName, e.Names)
		}
	})
}
