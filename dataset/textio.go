package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// gzipMagic is the first two bytes of every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// textInput returns a buffered reader of r's text: r itself, or its
// decompressed content when r starts with the gzip magic bytes. name is
// used in error messages.
func textInput(r io.Reader, name string) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(len(gzipMagic))
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, &ParseError{File: name, Msg: "read", Err: err}
	}
	if !bytes.Equal(head, gzipMagic) {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, &ParseError{File: name, Msg: "file starts with the gzip magic bytes but is not a valid gzip stream", Err: err}
	}
	return bufio.NewReaderSize(zr, 1<<16), nil
}

// lineReader yields the lines of a text, of any length, without their
// line terminator ("\n" or "\r\n"), counting them from 1.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	line int
}

// next returns the next line (valid until the following call) and its
// number. It returns io.EOF after the last line; a final line without a
// terminator is still returned.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.buf = append(l.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(l.buf) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		l.line++
		b := l.buf
		b = bytes.TrimSuffix(b, []byte{'\n'})
		b = bytes.TrimSuffix(b, []byte{'\r'})
		return b, nil
	}
}

// loadFile opens path and hands it to read, naming the file in errors.
func loadFile(path string, read func(r io.Reader) (*Dataset, error)) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	return read(f)
}

// createFile creates path for writing; it refuses to overwrite an existing
// file, so an export never rewrites earlier output. A path ending in ".gz"
// is written gzip-compressed. The returned close function must be called,
// and reports the first error of flushing and closing.
func createFile(path string) (io.Writer, func() error, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("dataset: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if !strings.HasSuffix(path, ".gz") {
		return bw, func() error {
			return errors.Join(bw.Flush(), f.Close())
		}, nil
	}
	zw := gzip.NewWriter(bw)
	return zw, func() error {
		return errors.Join(zw.Close(), bw.Flush(), f.Close())
	}, nil
}

// saveFile writes path with write, through createFile.
func saveFile(path string, write func(w io.Writer) error) error {
	w, closeFn, err := createFile(path)
	if err != nil {
		return err
	}
	if err := errors.Join(write(w), closeFn()); err != nil {
		return fmt.Errorf("dataset: write %s: %w", path, err)
	}
	return nil
}
