package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gzipText returns s gzip-compressed.
func gzipText(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

func TestReadLIBSVM(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  LIBSVMOptions
		want Dataset
	}{
		{
			name: "basic",
			in:   "+1 1:0.5 3:-2\n-1 2:1e-3\n",
			want: Dataset{X: []float64{0.5, 0, -2, 0, 1e-3, 0}, Y: []float64{1, -1}, Dim: 3},
		},
		{
			name: "comments blank lines CRLF tabs trailing space",
			in:   "# header comment\r\n\r\n1\t1:1 2:2 # trailing\r\n   \n0 2:3 \n",
			want: Dataset{X: []float64{1, 2, 0, 3}, Y: []float64{1, 0}, Dim: 2},
		},
		{
			name: "given dim wider than the data",
			in:   "2 1:1\n3 2:1",
			opt:  LIBSVMOptions{Dim: 4},
			want: Dataset{X: []float64{1, 0, 0, 0, 0, 1, 0, 0}, Y: []float64{2, 3}, Dim: 4},
		},
		{
			name: "qid",
			in:   "1 qid:3 1:1\n0 qid:-7 2:5\n",
			want: Dataset{X: []float64{1, 0, 0, 5}, Y: []float64{1, 0}, Dim: 2, QID: []int64{3, -7}},
		},
		{
			name: "empty example with given dim",
			in:   "1\n-1 1:2\n",
			opt:  LIBSVMOptions{Dim: 1},
			want: Dataset{X: []float64{0, 2}, Y: []float64{1, -1}, Dim: 1},
		},
		{
			name: "negative zero kept",
			in:   "-0 1:-0 2:1\n",
			want: Dataset{X: []float64{math.Copysign(0, -1), 1}, Y: []float64{math.Copysign(0, -1)}, Dim: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, compressed := range []bool{false, true} {
				in := []byte(tc.in)
				if compressed {
					in = gzipText(t, tc.in)
				}
				d, err := ReadLIBSVM(bytes.NewReader(in), tc.opt)
				if err != nil {
					t.Fatalf("gzip=%v: %v", compressed, err)
				}
				if !sameBits(d.X, tc.want.X) || !sameBits(d.Y, tc.want.Y) || d.Dim != tc.want.Dim || !reflect.DeepEqual(d.QID, tc.want.QID) {
					t.Errorf("gzip=%v: got X=%v Y=%v Dim=%d QID=%v, want X=%v Y=%v Dim=%d QID=%v",
						compressed, d.X, d.Y, d.Dim, d.QID, tc.want.X, tc.want.Y, tc.want.Dim, tc.want.QID)
				}
				if err := d.Validate(); err != nil {
					t.Errorf("gzip=%v: Validate: %v", compressed, err)
				}
			}
		})
	}
}

func TestReadLIBSVMErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  LIBSVMOptions
		want string // the whole error text, or a prefix ending in "..."
	}{
		{"index zero", "1 1:1\n1 0:1\n", LIBSVMOptions{}, `f.svm:2:3: feature index "0" is not a positive integer (LIBSVM indices start at 1)`},
		{"negative index", "1 -3:1\n", LIBSVMOptions{}, `f.svm:1:3: feature index "-3" is not a positive integer (LIBSVM indices start at 1)`},
		{"plus index", "1 +3:1\n", LIBSVMOptions{}, `f.svm:1:3: feature index "+3" is not a positive integer`},
		{"empty index", "1 :1\n", LIBSVMOptions{}, `f.svm:1:3: feature index "" is not a positive integer`},
		{"descending", "1 3:1 2:1\n", LIBSVMOptions{}, `f.svm:1:7: feature index 2 follows 3: indices must be strictly ascending`},
		{"duplicate", "1 3:1 3:1\n", LIBSVMOptions{}, `f.svm:1:7: feature index 3 follows 3: indices must be strictly ascending`},
		{"no colon", "1 3\n", LIBSVMOptions{}, `f.svm:1:3: feature "3" is not index:value`},
		{"bad value", "1 3:x\n", LIBSVMOptions{}, `f.svm:1:5: value "x" of feature 3 is not a finite number`},
		{"empty value", "1 3:\n", LIBSVMOptions{}, `f.svm:1:5: value "" of feature 3 is not a finite number`},
		{"nan value", "1 3:NaN\n", LIBSVMOptions{}, `f.svm:1:5: value "NaN" of feature 3 is not a finite number`},
		{"overflow value", "1 3:1e999\n", LIBSVMOptions{}, `f.svm:1:5: value "1e999" of feature 3 is not a finite number`},
		{"bad label", "\n# c\nyes 1:1\n", LIBSVMOptions{}, `f.svm:3:1: label "yes" is not a finite number`},
		{"inf label", "inf 1:1\n", LIBSVMOptions{}, `f.svm:1:1: label "inf" is not a finite number`},
		{"index above dim", "1 1:1 124:1\n", LIBSVMOptions{Dim: 123}, `f.svm:1:7: feature index 124 exceeds the feature count 123 given for this file`},
		{"qid late", "1 1:1 qid:2\n", LIBSVMOptions{}, `f.svm:1:7: qid "qid:2" must come right after the label, once`},
		{"qid twice", "1 qid:1 qid:2\n", LIBSVMOptions{}, `f.svm:1:9: qid "qid:2" must come right after the label, once`},
		{"qid bad", "1 qid:x 1:1\n", LIBSVMOptions{}, `f.svm:1:7: qid "x" is not an integer`},
		{"qid appears", "1 1:1\n1 qid:1 1:1\n", LIBSVMOptions{}, `f.svm:2:3: qid on this example but not on the ones before it`},
		{"qid vanishes", "1 qid:1 1:1\n1 1:1\n", LIBSVMOptions{}, `f.svm:2:1: example without qid after examples with one`},
		{"empty", "", LIBSVMOptions{}, `f.svm: no examples (every line is blank or a comment)`},
		{"comments only", "# a\n\n  # b\n", LIBSVMOptions{}, `f.svm: no examples`},
		{"no features", "1\n2\n", LIBSVMOptions{}, `f.svm: no features: every example is empty`},
		{"huge index", "1 99999999999:1\n", LIBSVMOptions{MaxValues: 1000}, `f.svm:1:3: feature index 99999999999 exceeds MaxValues = 1000: dense data set too large`},
		{"index overflows int64", "1 99999999999999999999:1\n", LIBSVMOptions{}, `f.svm:1:3: feature index "99999999999999999999" is not a positive integer`},
		{"too many values", "1 10:1\n1 10:1\n1 10:1\n", LIBSVMOptions{MaxValues: 25}, `f.svm: dense matrix of 3 rows x 10 features exceeds MaxValues = 25: dense data set too large`},
		{"negative dim", "1 1:1\n", LIBSVMOptions{Dim: -1}, `dataset: f.svm: LIBSVMOptions.Dim = -1, want >= 0`},
		{"bad gzip", "\x1f\x8bnot gzip", LIBSVMOptions{}, `f.svm: file starts with the gzip magic bytes but is not a valid gzip stream: ...`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Name = "f.svm"
			_, err := ReadLIBSVM(strings.NewReader(tc.in), tc.opt)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			got := err.Error()
			if want, prefix := strings.CutSuffix(tc.want, "..."); prefix && !strings.HasPrefix(got, want) || !prefix && !strings.HasPrefix(got, tc.want) {
				t.Errorf("error\n  %s\nwant\n  %s", got, tc.want)
			}
			if strings.Contains(tc.want, "too large") && !errors.Is(err, ErrTooLarge) {
				t.Errorf("error %v does not wrap ErrTooLarge", err)
			}
		})
	}
}

// TestReadLIBSVMTruncatedGzip checks that a gzip stream cut short is an
// error naming the file, not a short data set.
func TestReadLIBSVMTruncatedGzip(t *testing.T) {
	var text strings.Builder
	for k := range 2000 {
		text.WriteString("1 1:1 5:")
		text.WriteString(strings.Repeat("7", k%13+1))
		text.WriteString("\n")
	}
	z := gzipText(t, text.String())
	_, err := ReadLIBSVM(bytes.NewReader(z[:len(z)/2]), LIBSVMOptions{Name: "cut.gz"})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "cut.gz" {
		t.Fatalf("truncated gzip: error %v, want a *ParseError naming cut.gz", err)
	}
}

// randomDataset draws a data set with awkward values: signed zeros,
// subnormals, huge and tiny magnitudes, integers and long mantissas.
func randomDataset(rng *rand.Rand, m, n int, qid bool) *Dataset {
	pick := func() float64 {
		switch rng.IntN(8) {
		case 0, 1:
			return 0
		case 2:
			return math.Copysign(0, -1)
		case 3:
			return math.Float64frombits(rng.Uint64() &^ (0x7ff << 52)) // subnormal
		case 4:
			return float64(rng.IntN(5) - 2)
		case 5:
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
		default:
			return rng.NormFloat64()
		}
	}
	d := &Dataset{X: make([]float64, m*n), Y: make([]float64, m), Dim: n, Source: "random"}
	for p := range d.X {
		d.X[p] = pick()
	}
	for k := range d.Y {
		d.Y[k] = pick()
	}
	if qid {
		d.QID = make([]int64, m)
		for k := range d.QID {
			d.QID[k] = rng.Int64() - rng.Int64()
		}
	}
	return d
}

func TestLIBSVMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		d := randomDataset(rng, 1+rng.IntN(30), 1+rng.IntN(12), trial%2 == 0)
		var b bytes.Buffer
		if err := WriteLIBSVM(&b, d); err != nil {
			t.Fatal(err)
		}
		e, err := ReadLIBSVM(&b, LIBSVMOptions{Dim: d.Dim})
		if err != nil {
			t.Fatalf("trial %d: read back: %v", trial, err)
		}
		if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) || d.Dim != e.Dim || !reflect.DeepEqual(d.QID, e.QID) {
			t.Fatalf("trial %d: round trip changed the data", trial)
		}
	}
}

func TestSaveLIBSVM(t *testing.T) {
	dir := t.TempDir()
	d := randomDataset(rand.New(rand.NewPCG(3, 4)), 40, 5, false)
	for _, name := range []string{"d.svm", "d.svm.gz"} {
		path := filepath.Join(dir, name)
		if err := SaveLIBSVM(path, d); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if gzipped := bytes.HasPrefix(raw, gzipMagic); gzipped != strings.HasSuffix(name, ".gz") {
			t.Errorf("%s: gzip-compressed = %v", name, gzipped)
		}
		e, err := LoadLIBSVM(path, LIBSVMOptions{Dim: d.Dim})
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) {
			t.Errorf("%s: round trip changed the data", name)
		}
		if e.Source != path {
			t.Errorf("Source = %q, want %q", e.Source, path)
		}
		if err := SaveLIBSVM(path, d); err == nil {
			t.Errorf("%s: second save overwrote the file", name)
		}
	}
	if _, err := LoadLIBSVM(filepath.Join(dir, "missing.svm"), LIBSVMOptions{}); err == nil || !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("missing file: error %v, want one naming the file", err)
	}
	bad := filepath.Join(dir, "bad.svm")
	if err := os.WriteFile(bad, []byte("1 1:1\n1 0:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLIBSVM(bad, LIBSVMOptions{}); err == nil || !strings.HasPrefix(err.Error(), bad+":2:3: ") {
		t.Errorf("bad file: error %v, want it to start with %s:2:3:", err, bad)
	}
}

const (
	a9aTrain = "/work/shared/data/a9a/a9a.gz"
	a9aTest  = "/work/shared/data/a9a/a9a.t.gz"
)

// countLabels returns the numbers of +1 and -1 labels.
func countLabels(y []float64) (pos, neg int) {
	for _, v := range y {
		switch v {
		case 1:
			pos++
		case -1:
			neg++
		}
	}
	return pos, neg
}

// nonzeros returns the number of nonzero values of x.
func nonzeros(x []float64) int {
	c := 0
	for _, v := range x {
		if v != 0 {
			c++
		}
	}
	return c
}

// TestA9A checks the a9a files against the counts of the data README:
// rows, features, labels and nonzeros, and the test file's width with and
// without the given feature count.
func TestA9A(t *testing.T) {
	if _, err := os.Stat(a9aTrain); err != nil {
		t.Skipf("a9a not available: %v", err)
	}
	tests := []struct {
		path         string
		opt          LIBSVMOptions
		rows, dim    int
		pos, neg, nz int
	}{
		{a9aTrain, LIBSVMOptions{}, 32561, 123, 7841, 24720, 451592},
		{a9aTest, LIBSVMOptions{}, 16281, 122, 3846, 12435, 225731},
		{a9aTest, LIBSVMOptions{Dim: 123}, 16281, 123, 3846, 12435, 225731},
	}
	for _, tc := range tests {
		d, err := LoadLIBSVM(tc.path, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		pos, neg := countLabels(d.Y)
		if d.Rows() != tc.rows || d.Dim != tc.dim || pos != tc.pos || neg != tc.neg || nonzeros(d.X) != tc.nz {
			t.Errorf("%s (Dim %d): rows %d, dim %d, +1/-1 %d/%d, nonzeros %d; want %d, %d, %d/%d, %d",
				tc.path, tc.opt.Dim, d.Rows(), d.Dim, pos, neg, nonzeros(d.X), tc.rows, tc.dim, tc.pos, tc.neg, tc.nz)
		}
		for p, v := range d.X {
			if v != 0 && v != 1 {
				t.Fatalf("%s: row %d feature %d = %g, want 0 or 1", tc.path, p/d.Dim, p%d.Dim, v)
			}
		}
		if tc.opt.Dim == 0 && tc.path == a9aTrain {
			var b bytes.Buffer
			if err := WriteLIBSVM(&b, d); err != nil {
				t.Fatal(err)
			}
			e, err := ReadLIBSVM(&b, LIBSVMOptions{Dim: d.Dim})
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(d.X, e.X) || !sameBits(d.Y, e.Y) {
				t.Error("a9a: export and re-read changed the data")
			}
		}
	}
}

// BenchmarkLoadA9A reads the gzip-compressed a9a training file.
func BenchmarkLoadA9A(b *testing.B) {
	if _, err := os.Stat(a9aTrain); err != nil {
		b.Skipf("a9a not available: %v", err)
	}
	for b.Loop() {
		if _, err := LoadLIBSVM(a9aTrain, LIBSVMOptions{Dim: 123}); err != nil {
			b.Fatal(err)
		}
	}
}
