package sim

import (
	"bytes"
	"io"
	"sync"
)

// tailLines is the number of stderr lines kept per child process.
const tailLines = 20

// maxLine caps one kept line, so a child that never writes a newline
// cannot grow the buffer without bound.
const maxLine = 4096

// tailWriter keeps the last n complete lines written to it in a ring and
// copies each line, with a prefix, to an optional shared writer.
type tailWriter struct {
	prefix string
	out    *SyncWriter            // nil: keep only
	skip   func(line string) bool // lines neither kept nor forwarded; nil: none

	mu      sync.Mutex
	partial []byte
	ring    []string
	next    int
	full    bool
}

func newTailWriter(n int, prefix string, out *SyncWriter) *tailWriter {
	return &tailWriter{prefix: prefix, out: out, ring: make([]string, n)}
}

// Write splits p into lines; it never fails.
func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			w.partial = append(w.partial, rest...)
			if len(w.partial) > maxLine {
				w.line(w.partial)
				w.partial = w.partial[:0]
			}
			break
		}
		w.partial = append(w.partial, rest[:i]...)
		w.line(w.partial)
		w.partial = w.partial[:0]
		rest = rest[i+1:]
	}
	return len(p), nil
}

// line keeps one line and forwards it.
func (w *tailWriter) line(b []byte) {
	s := string(b)
	if w.skip != nil && w.skip(s) {
		return
	}
	w.ring[w.next] = s
	w.next = (w.next + 1) % len(w.ring)
	if w.next == 0 {
		w.full = true
	}
	if w.out != nil {
		w.out.writeLine(w.prefix + s)
	}
}

// Lines returns the kept lines, oldest first, and an unterminated last
// line if there is one.
func (w *tailWriter) Lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	if w.full {
		out = append(out, w.ring[w.next:]...)
	}
	out = append(out, w.ring[:w.next]...)
	if len(w.partial) > 0 {
		out = append(out, string(w.partial))
	}
	return out
}

// SyncWriter serialises the writes of several goroutines onto one writer:
// each Write, and each line a launch forwards from an agent process, is
// written whole.
type SyncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewSyncWriter returns a SyncWriter onto w.
func NewSyncWriter(w io.Writer) *SyncWriter { return &SyncWriter{w: w} }

// writeLine writes s and a newline.
func (l *SyncWriter) writeLine(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, s+"\n")
}

// Write writes p as is, under the lock.
func (l *SyncWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
