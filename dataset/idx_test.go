package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes builds an IDX file of type t with dims and raw data.
func idxBytes(t byte, dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, t, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func gz(t testing.TB, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadIDXSmall(t *testing.T) {
	// 2 images of 2x3 pixels.
	pix := []byte{0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255}
	raw := idxBytes(IDXUint8, []int{2, 2, 3}, pix)
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"plain", raw}, {"gzip", gz(t, raw)}} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadIDX(bytes.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if f.Type != IDXUint8 || len(f.Dims) != 3 || f.Dims[0] != 2 || f.Dims[1] != 2 || f.Dims[2] != 3 {
				t.Fatalf("header: type %x dims %v", f.Type, f.Dims)
			}
			if !bytes.Equal(f.Data, pix) {
				t.Fatalf("data %v, want %v", f.Data, pix)
			}
			v := f.Float64s()
			if v[6] != 250 || v[11] != 255 || len(v) != 12 {
				t.Fatalf("Float64s %v", v)
			}
		})
	}
}

func TestIDXTypes(t *testing.T) {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, []int16{-3, 7})
	f16, err := ReadIDX(bytes.NewReader(idxBytes(IDXInt16, []int{2}, b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	binary.Write(&b, binary.BigEndian, []float64{math.Pi, -0.5})
	f64, err := ReadIDX(bytes.NewReader(idxBytes(IDXFloat64, []int{2}, b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	binary.Write(&b, binary.BigEndian, []float32{1.5})
	f32, err := ReadIDX(bytes.NewReader(idxBytes(IDXFloat32, []int{1, 1}, b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	binary.Write(&b, binary.BigEndian, []int32{-70000})
	i32, err := ReadIDX(bytes.NewReader(idxBytes(IDXInt32, []int{1}, b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	i8, err := ReadIDX(bytes.NewReader(idxBytes(IDXInt8, []int{1}, []byte{0xff})))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		got, want []float64
	}{
		{f16.Float64s(), []float64{-3, 7}},
		{f64.Float64s(), []float64{math.Pi, -0.5}},
		{f32.Float64s(), []float64{1.5}},
		{i32.Float64s(), []float64{-70000}},
		{i8.Float64s(), []float64{-1}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Fatalf("got %v, want %v", tc.got, tc.want)
		}
		for i := range tc.got {
			if tc.got[i] != tc.want[i] {
				t.Fatalf("got %v, want %v", tc.got, tc.want)
			}
		}
	}
}

func TestReadIDXErrors(t *testing.T) {
	good := idxBytes(IDXUint8, []int{2, 2}, []byte{1, 2, 3, 4})
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "truncated magic"},
		{"short magic", []byte{0, 0}, "truncated magic"},
		{"nonzero magic", []byte{1, 0, 8, 1, 0, 0, 0, 0}, "first two bytes"},
		{"bad type", []byte{0, 0, 0x07, 1, 0, 0, 0, 0}, "unknown element type"},
		{"zero dims", []byte{0, 0, 8, 0}, "zero dimensions"},
		{"short header", []byte{0, 0, 8, 2, 0, 0, 0, 2}, "truncated header"},
		{"short data", good[:len(good)-1], "need 4 bytes, found 3"},
		{"trailing", append(append([]byte(nil), good...), 9), "trailing bytes"},
		{"huge", idxBytes(IDXFloat64, []int{1 << 20, 1 << 20}, nil), "more than"},
		{"huge but short", idxBytes(IDXUint8, []int{1 << 30}, []byte{1}), "truncated data"},
		{"bad gzip", []byte{0x1f, 0x8b, 0, 0}, "gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadIDX(bytes.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReadMNISTFiles(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "img.gz")
	lab := filepath.Join(dir, "lab")
	bad := filepath.Join(dir, "bad")
	write := func(p string, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(img, gz(t, idxBytes(IDXUint8, []int{3, 2, 2}, make([]byte, 12))))
	write(lab, idxBytes(IDXUint8, []int{3}, []byte{0, 9, 4}))
	write(bad, idxBytes(IDXUint8, []int{2}, []byte{0, 10}))
	im, lb, err := ReadMNIST(img, lab)
	if err != nil {
		t.Fatal(err)
	}
	if im.N != 3 || im.Rows != 2 || im.Cols != 2 || len(im.Pixels) != 12 || lb[1] != 9 {
		t.Fatalf("images %+v labels %v", im, lb)
	}
	if _, _, err := ReadMNIST(lab, lab); err == nil || !strings.Contains(err.Error(), lab) || !strings.Contains(err.Error(), "not an MNIST image file") {
		t.Fatalf("labels as images: %v", err)
	}
	if _, _, err := ReadMNIST(img, img); err == nil || !strings.Contains(err.Error(), "not an MNIST label file") {
		t.Fatalf("images as labels: %v", err)
	}
	if _, err := ReadMNISTLabels(bad, 9); err == nil || !strings.Contains(err.Error(), "label 10 of item 1") || !strings.Contains(err.Error(), bad) {
		t.Fatalf("bad label: %v", err)
	}
	short := filepath.Join(dir, "short")
	write(short, idxBytes(IDXUint8, []int{2}, []byte{0, 1}))
	if _, _, err := ReadMNIST(img, short); err == nil || !strings.Contains(err.Error(), "3 images") {
		t.Fatalf("count mismatch: %v", err)
	}
	if _, err := ReadIDXFile(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestRealMNIST reads the shipped MNIST files and checks the counts of the
// data README.
func TestRealMNIST(t *testing.T) {
	dir := "/work/shared/data/mnist"
	if env := os.Getenv("CONSIM_MNIST"); env != "" {
		dir = env
	}
	if _, err := os.Stat(filepath.Join(dir, "t10k-labels-idx1-ubyte.gz")); err != nil {
		t.Skipf("MNIST not found in %s", dir)
	}
	for _, tc := range []struct {
		prefix string
		n      int
		counts [10]int
	}{
		{"t10k", 10000, [10]int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}},
		{"train", 60000, [10]int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}},
	} {
		if tc.prefix == "train" && testing.Short() {
			continue
		}
		im, lb, err := ReadMNIST(filepath.Join(dir, tc.prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, tc.prefix+"-labels-idx1-ubyte.gz"))
		if err != nil {
			t.Fatal(err)
		}
		if im.N != tc.n || im.Rows != 28 || im.Cols != 28 || len(im.Pixels) != tc.n*784 {
			t.Fatalf("%s: %d images of %dx%d", tc.prefix, im.N, im.Rows, im.Cols)
		}
		var counts [10]int
		for _, l := range lb {
			counts[l]++
		}
		if counts != tc.counts {
			t.Fatalf("%s: label counts %v, want %v", tc.prefix, counts, tc.counts)
		}
	}
}

// FuzzReadIDX checks that no input makes ReadIDX panic and that an accepted
// input is consistent: Data holds exactly prod(Dims) elements.
func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(IDXUint8, []int{2, 2}, []byte{1, 2, 3, 4}))
	f.Add(idxBytes(IDXFloat32, []int{1}, []byte{0, 0, 0, 0}))
	f.Add(gz(f, idxBytes(IDXUint8, []int{1}, []byte{7})))
	f.Add([]byte{0, 0, 8, 3, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		idx, err := ReadIDX(bytes.NewReader(in))
		if err != nil {
			return
		}
		if len(idx.Data) != idx.Len()*IDXElemSize(idx.Type) {
			t.Fatalf("dims %v type %x but %d data bytes", idx.Dims, idx.Type, len(idx.Data))
		}
		if len(idx.Float64s()) != idx.Len() {
			t.Fatal("Float64s length")
		}
	})
}
