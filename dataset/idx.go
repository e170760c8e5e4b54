package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// IDX is the content of one IDX file (the format of the MNIST
// distribution): a header
//
//	magic = 0x00 0x00 type ndims, then ndims big-endian uint32 sizes,
//
// followed by prod(sizes) elements of the given type, big-endian, in
// row-major order.
type IDX struct {
	// Type is the element type code of the header: IDXUint8, IDXInt8,
	// IDXInt16, IDXInt32, IDXFloat32 or IDXFloat64.
	Type byte
	// Dims are the sizes of the dimensions, outermost first (for MNIST
	// images: count, rows, columns).
	Dims []int
	// Data holds the elements as stored: prod(Dims) elements of
	// IDXElemSize(Type) bytes each, big-endian.
	Data []byte
}

// IDX element type codes (the third byte of the magic number).
const (
	IDXUint8   byte = 0x08
	IDXInt8    byte = 0x09
	IDXInt16   byte = 0x0B
	IDXInt32   byte = 0x0C
	IDXFloat32 byte = 0x0D
	IDXFloat64 byte = 0x0E
)

// MNIST magic numbers: unsigned bytes with 3 dimensions (images) and 1
// dimension (labels).
const (
	MagicImages = 0x00000803
	MagicLabels = 0x00000801
)

// maxIDXElems bounds the number of elements a header may declare (2^31),
// so that a corrupt header cannot request an absurd allocation.
const maxIDXElems = 1 << 31

// IDXElemSize returns the size in bytes of one element of type code t, or 0
// for an unknown code.
func IDXElemSize(t byte) int {
	switch t {
	case IDXUint8, IDXInt8:
		return 1
	case IDXInt16:
		return 2
	case IDXInt32, IDXFloat32:
		return 4
	case IDXFloat64:
		return 8
	}
	return 0
}

// Len returns the number of elements, prod(Dims).
func (f *IDX) Len() int {
	n := 1
	for _, d := range f.Dims {
		n *= d
	}
	return n
}

// Float64s returns the elements converted to float64, in storage order.
func (f *IDX) Float64s() []float64 {
	n := f.Len()
	out := make([]float64, n)
	b := f.Data
	for i := range out {
		switch f.Type {
		case IDXUint8:
			out[i] = float64(b[i])
		case IDXInt8:
			out[i] = float64(int8(b[i]))
		case IDXInt16:
			out[i] = float64(int16(binary.BigEndian.Uint16(b[2*i:])))
		case IDXInt32:
			out[i] = float64(int32(binary.BigEndian.Uint32(b[4*i:])))
		case IDXFloat32:
			out[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(b[4*i:])))
		case IDXFloat64:
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
		}
	}
	return out
}

// ReadIDXFile reads the IDX file at path. A file starting with the gzip
// magic bytes 0x1f 0x8b is decompressed transparently. Errors name the file.
func ReadIDXFile(path string) (*IDX, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("idx: %w", err)
	}
	defer fh.Close()
	f, err := ReadIDX(fh)
	if err != nil {
		return nil, fmt.Errorf("idx %s: %w", path, err)
	}
	return f, nil
}

// ReadIDX reads one IDX file from r, decompressing it first if it starts
// with the gzip magic bytes. The whole content must be the header and
// exactly prod(Dims) elements: a short file is an error naming how many
// bytes were expected and found, and trailing bytes are an error too.
func ReadIDX(r io.Reader) (*IDX, error) {
	br := bufio.NewReader(r)
	var src io.Reader = br
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip header: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	var magic [4]byte
	if n, err := io.ReadFull(src, magic[:]); err != nil {
		return nil, fmt.Errorf("truncated magic number: %d of 4 bytes: %w", n, unexpected(err))
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("bad magic number 0x%08x: the first two bytes must be zero", binary.BigEndian.Uint32(magic[:]))
	}
	f := &IDX{Type: magic[2]}
	size := IDXElemSize(f.Type)
	if size == 0 {
		return nil, fmt.Errorf("bad magic number 0x%08x: unknown element type 0x%02x", binary.BigEndian.Uint32(magic[:]), f.Type)
	}
	nd := int(magic[3])
	if nd == 0 {
		return nil, fmt.Errorf("bad magic number 0x%08x: zero dimensions", binary.BigEndian.Uint32(magic[:]))
	}
	hdr := make([]byte, 4*nd)
	if n, err := io.ReadFull(src, hdr); err != nil {
		return nil, fmt.Errorf("truncated header: %d of %d bytes of dimension sizes: %w", n, len(hdr), unexpected(err))
	}
	f.Dims = make([]int, nd)
	total := uint64(1)
	for i := range f.Dims {
		d := binary.BigEndian.Uint32(hdr[4*i:])
		f.Dims[i] = int(d)
		total *= uint64(d)
		if total > maxIDXElems {
			return nil, fmt.Errorf("bad dimensions %v...: more than %d elements", f.Dims[:i+1], maxIDXElems)
		}
	}
	want := int(total) * size
	// Read in chunks so that a header declaring much more data than the
	// file holds does not allocate it all up front.
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(src, int64(want)))
	if err != nil {
		return nil, fmt.Errorf("reading data: %w", err)
	}
	if int(n) < want {
		return nil, fmt.Errorf("truncated data: dimensions %v of %d-byte elements need %d bytes, found %d", f.Dims, size, want, n)
	}
	var extra [1]byte
	if k, _ := io.ReadFull(src, extra[:]); k > 0 {
		return nil, fmt.Errorf("trailing bytes after the %d data bytes of dimensions %v", want, f.Dims)
	}
	f.Data = buf.Bytes()
	return f, nil
}

// unexpected turns a clean io.EOF of io.ReadFull into io.ErrUnexpectedEOF,
// since any end of file inside the header is premature.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Images is a set of N grayscale images of Rows x Cols unsigned bytes,
// image k at Pixels[k*Rows*Cols:(k+1)*Rows*Cols], each row-major.
type Images struct {
	N, Rows, Cols int
	Pixels        []uint8
}

// ReadMNISTImages reads an MNIST image file (magic 0x00000803: unsigned
// bytes, dimensions count x rows x cols), gzip or plain.
func ReadMNISTImages(path string) (*Images, error) {
	f, err := ReadIDXFile(path)
	if err != nil {
		return nil, err
	}
	if f.Type != IDXUint8 || len(f.Dims) != 3 {
		return nil, fmt.Errorf("idx %s: magic 0x0000%02x%02x is not an MNIST image file (want 0x%08x: unsigned bytes, 3 dimensions)", path, f.Type, len(f.Dims), MagicImages)
	}
	return &Images{N: f.Dims[0], Rows: f.Dims[1], Cols: f.Dims[2], Pixels: f.Data}, nil
}

// ReadMNISTLabels reads an MNIST label file (magic 0x00000801: unsigned
// bytes, one dimension), gzip or plain, and checks every label is at most
// maxLabel.
func ReadMNISTLabels(path string, maxLabel uint8) ([]uint8, error) {
	f, err := ReadIDXFile(path)
	if err != nil {
		return nil, err
	}
	if f.Type != IDXUint8 || len(f.Dims) != 1 {
		return nil, fmt.Errorf("idx %s: magic 0x0000%02x%02x is not an MNIST label file (want 0x%08x: unsigned bytes, 1 dimension)", path, f.Type, len(f.Dims), MagicLabels)
	}
	for i, l := range f.Data {
		if l > maxLabel {
			return nil, fmt.Errorf("idx %s: label %d of item %d exceeds %d", path, l, i, maxLabel)
		}
	}
	return f.Data, nil
}

// ReadMNIST reads a matching pair of MNIST image and label files and checks
// that they hold the same number of items and labels 0-9.
func ReadMNIST(imagesPath, labelsPath string) (*Images, []uint8, error) {
	im, err := ReadMNISTImages(imagesPath)
	if err != nil {
		return nil, nil, err
	}
	lb, err := ReadMNISTLabels(labelsPath, 9)
	if err != nil {
		return nil, nil, err
	}
	if len(lb) != im.N {
		return nil, nil, fmt.Errorf("idx: %s holds %d images but %s holds %d labels", imagesPath, im.N, labelsPath, len(lb))
	}
	return im, lb, nil
}
