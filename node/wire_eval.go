package node

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
)

// Bodies of the eval frames. The header is the common one (see wire.go);
// count is the number of 8-byte little-endian words after it, laid out as
// follows (a request's or a result's values are IEEE 754 binary64 bit
// patterns):
//
//	eval (5), from = requesting agent:
//	  seq, start, n, then n times: op (int64), key, len, len values
//	eval result (6), from = requesting agent:
//	  seq, worker, start, n, then n times: len, len values
//	eval failure (7), from = requesting agent:
//	  seq, worker, index, bytes, then ceil(bytes/8) words of message text,
//	  zero-padded
//
// seq numbers the batches of one agent (one per phase with evaluations);
// start is the index in the batch of the frame's first request or result,
// index that of the request that failed; worker is the oracle worker's
// index. A frame that does not follow its layout exactly is malformed.

// Bounds of the eval bodies.
const (
	// maxEvalIndex bounds request indices and counts in a batch.
	maxEvalIndex = maxFrameCount
	// maxEvalMessage bounds the text of a failure, in bytes.
	maxEvalMessage = 4096
)

// EvalChunk is a decoded eval frame: requests Start..Start+len(Reqs)-1 of
// batch Seq of agent From, made in phase (Round, Phase).
type EvalChunk struct {
	Header
	Seq   uint64
	Start int
	Reqs  []consensus.EvalRequest

	args []float64 // storage of the requests' Arg
}

// EvalReply is a decoded eval result or eval failure frame for agent From.
type EvalReply struct {
	Header
	Seq    uint64
	Worker int
	// Start is the batch index of Values[0] (results), or of the request
	// that failed (failure).
	Start int
	// Values are the results of requests Start..Start+len(Values)-1; nil
	// on a failure.
	Values [][]float64
	// Err is the worker's message on a failure.
	Err string

	vals []float64 // storage of Values
}

// checkFields validates the header fields of a frame about to be encoded
// with count words.
func checkFields(kind FrameKind, from, round, phase, count int) error {
	switch {
	case !kind.known():
		return fmt.Errorf("node: encode frame: unknown kind %d", uint8(kind))
	case from < 0 || uint64(from) > MaxFrameID:
		return fmt.Errorf("node: encode %s frame: agent id %d outside [0, %d]", kind, from, uint64(MaxFrameID))
	case round < 0 || uint64(round) > MaxFrameRound:
		return fmt.Errorf("node: encode %s frame: round %d outside [0, %d]", kind, round, uint64(MaxFrameRound))
	case phase < 0 || phase > MaxFramePhase:
		return fmt.Errorf("node: encode %s frame: phase %d outside [0, %d]", kind, phase, MaxFramePhase)
	case count > maxFrameCount:
		return fmt.Errorf("node: encode %s frame: %d words exceed the limit %d", kind, count, maxFrameCount)
	}
	return nil
}

// wordWriter writes words into a frame body.
type wordWriter struct {
	b []byte
	i int // next byte
}

func (w *wordWriter) u(v uint64) {
	binary.LittleEndian.PutUint64(w.b[w.i:], v)
	w.i += 8
}

func (w *wordWriter) floats(vs []float64) {
	for _, v := range vs {
		w.u(math.Float64bits(v))
	}
}

// startFrame grows dst by a frame of count words without destinations,
// writes its header and returns the extended slice and a writer
// positioned at the body.
func startFrame(dst []byte, kind FrameKind, from, round, phase, count int) ([]byte, wordWriter) {
	dst, b := growFrame(dst, kind, from, nil, round, phase, count, 8*count)
	return dst, wordWriter{b: b, i: HeaderLen}
}

// evalChunkWords is the body size of a chunk of reqs, in words.
func evalChunkWords(reqs []consensus.EvalRequest) int {
	n := 3
	for _, q := range reqs {
		n += 3 + len(q.Arg)
	}
	return n
}

// AppendEvalChunk appends the eval frame of requests start..start+len(reqs)-1
// of batch seq of agent from in (round, phase) to dst and returns the
// extended slice; dst is unchanged on error.
func AppendEvalChunk(dst []byte, from, round, phase int, seq uint64, start int, reqs []consensus.EvalRequest) ([]byte, error) {
	count := evalChunkWords(reqs)
	if err := checkFields(FrameEval, from, round, phase, count); err != nil {
		return dst, err
	}
	if len(reqs) == 0 || start < 0 || start+len(reqs) > maxEvalIndex {
		return dst, fmt.Errorf("node: encode eval frame: requests %d..%d outside [0, %d)", start, start+len(reqs)-1, maxEvalIndex)
	}
	dst, w := startFrame(dst, FrameEval, from, round, phase, count)
	w.u(seq)
	w.u(uint64(start))
	w.u(uint64(len(reqs)))
	for _, q := range reqs {
		w.u(uint64(int64(q.Op)))
		w.u(q.Key)
		w.u(uint64(len(q.Arg)))
		w.floats(q.Arg)
	}
	return dst, nil
}

// AppendEvalResults appends the eval result frame of batch seq of agent
// to, made in (round, phase), to dst: worker's values of requests
// start..start+len(vals)-1. It returns the extended slice; dst is unchanged
// on error.
func AppendEvalResults(dst []byte, to, round, phase int, seq uint64, worker, start int, vals [][]float64) ([]byte, error) {
	count := 4 + len(vals)
	for _, v := range vals {
		count += len(v)
	}
	if err := checkFields(FrameEvalResult, to, round, phase, count); err != nil {
		return dst, err
	}
	if worker < 0 || uint64(worker) > MaxFrameID {
		return dst, fmt.Errorf("node: encode eval result frame: worker %d outside [0, %d]", worker, uint64(MaxFrameID))
	}
	if len(vals) == 0 || start < 0 || start+len(vals) > maxEvalIndex {
		return dst, fmt.Errorf("node: encode eval result frame: results %d..%d outside [0, %d)", start, start+len(vals)-1, maxEvalIndex)
	}
	dst, w := startFrame(dst, FrameEvalResult, to, round, phase, count)
	w.u(seq)
	w.u(uint64(worker))
	w.u(uint64(start))
	w.u(uint64(len(vals)))
	for _, v := range vals {
		w.u(uint64(len(v)))
		w.floats(v)
	}
	return dst, nil
}

// AppendEvalFail appends the eval failure frame of request index of batch
// seq of agent to, made in (round, phase), to dst: worker could not
// evaluate it, for the reason msg (cut to 4096 bytes). It returns the
// extended slice; dst is unchanged on error.
func AppendEvalFail(dst []byte, to, round, phase int, seq uint64, worker, index int, msg string) ([]byte, error) {
	if len(msg) > maxEvalMessage {
		msg = msg[:maxEvalMessage]
	}
	count := 4 + (len(msg)+7)/8
	if err := checkFields(FrameEvalFail, to, round, phase, count); err != nil {
		return dst, err
	}
	if worker < 0 || uint64(worker) > MaxFrameID {
		return dst, fmt.Errorf("node: encode eval failure frame: worker %d outside [0, %d]", worker, uint64(MaxFrameID))
	}
	if index < 0 || index >= maxEvalIndex {
		return dst, fmt.Errorf("node: encode eval failure frame: request %d outside [0, %d)", index, maxEvalIndex)
	}
	dst, w := startFrame(dst, FrameEvalFail, to, round, phase, count)
	w.u(seq)
	w.u(uint64(worker))
	w.u(uint64(index))
	w.u(uint64(len(msg)))
	b := w.b[w.i:]
	clear(b)
	copy(b, msg)
	return dst, nil
}

// wordReader reads the body words of a frame, remembering the first
// shortfall.
type wordReader struct {
	b   []byte // the body
	i   int
	bad bool
}

// left is the number of words not yet read.
func (r *wordReader) left() int { return (len(r.b) - r.i) / 8 }

func (r *wordReader) u() uint64 {
	if r.left() < 1 {
		r.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.i:])
	r.i += 8
	return v
}

// count reads a word that must be at most limit.
func (r *wordReader) count(limit int) int {
	v := r.u()
	if v > uint64(limit) {
		r.bad = true
		return 0
	}
	return int(v)
}

// floats appends n values to dst.
func (r *wordReader) floats(dst []float64, n int) []float64 {
	if r.left() < n {
		r.bad = true
		return dst
	}
	for range n {
		dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.i:])))
		r.i += 8
	}
	return dst
}

// evalBody decodes and checks the header of an eval frame of kind want.
func evalBody(frame []byte, want FrameKind) (Header, wordReader, error) {
	h, err := DecodeHeader(frame)
	if err != nil {
		return Header{}, wordReader{}, err
	}
	if h.Kind != want {
		return Header{}, wordReader{}, fmt.Errorf("node: %w: %s frame from agent %d where an %s frame was expected", ErrMalformedFrame, h.Kind, h.From, want)
	}
	return h, wordReader{b: frame[HeaderLen:]}, nil
}

// DecodeEvalChunk decodes the eval frame into c, reusing the storage of
// c.Reqs and of their arguments, which the next call overwrites.
func DecodeEvalChunk(c *EvalChunk, frame []byte) error {
	h, r, err := evalBody(frame, FrameEval)
	if err != nil {
		return err
	}
	c.Header = h
	c.Seq = r.u()
	c.Start = r.count(maxEvalIndex)
	n := r.count(maxEvalIndex - c.Start)
	if n == 0 || n > r.left()/3 {
		r.bad = true
	}
	c.Reqs = c.Reqs[:0]
	c.args = c.args[:0]
	if r.bad {
		return malformedEval(h)
	}
	spans := make([][2]int, 0, n) // offsets into args, fixed once args stops growing
	for range n {
		op := int64(r.u())
		key := r.u()
		m := r.count(r.left())
		from := len(c.args)
		c.args = r.floats(c.args, m)
		if r.bad || int64(int(op)) != op {
			return malformedEval(h)
		}
		c.Reqs = append(c.Reqs, consensus.EvalRequest{Op: int(op), Key: key})
		spans = append(spans, [2]int{from, len(c.args)})
	}
	if r.left() != 0 {
		return malformedEval(h)
	}
	for k, s := range spans {
		c.Reqs[k].Arg = c.args[s[0]:s[1]:s[1]]
	}
	return nil
}

// DecodeEvalReply decodes an eval result or eval failure frame into e,
// reusing the storage of e.Values, which the next call overwrites.
func DecodeEvalReply(e *EvalReply, frame []byte) error {
	h, err := DecodeHeader(frame)
	if err != nil {
		return err
	}
	if h.Kind != FrameEvalResult && h.Kind != FrameEvalFail {
		return fmt.Errorf("node: %w: %s frame from agent %d where an eval reply was expected", ErrMalformedFrame, h.Kind, h.From)
	}
	r := wordReader{b: frame[HeaderLen:]}
	e.Header = h
	e.Seq = r.u()
	e.Worker = r.count(MaxFrameID)
	e.Values, e.vals, e.Err = e.Values[:0], e.vals[:0], ""
	if h.Kind == FrameEvalFail {
		e.Start = r.count(maxEvalIndex - 1)
		n := r.count(maxEvalMessage)
		if r.bad || r.left() != (n+7)/8 {
			return malformedEval(h)
		}
		text := r.b[r.i:]
		for _, c := range text[n:] {
			if c != 0 {
				return malformedEval(h) // padding must be zero
			}
		}
		e.Values = nil
		e.Err = string(text[:n])
		return nil
	}
	e.Start = r.count(maxEvalIndex)
	n := r.count(maxEvalIndex - e.Start)
	if n == 0 || n > r.left() {
		r.bad = true
	}
	if r.bad {
		return malformedEval(h)
	}
	ends := make([]int, 0, n)
	for range n {
		m := r.count(r.left())
		e.vals = r.floats(e.vals, m)
		if r.bad {
			return malformedEval(h)
		}
		ends = append(ends, len(e.vals))
	}
	if r.left() != 0 {
		return malformedEval(h)
	}
	from := 0
	for _, end := range ends {
		e.Values = append(e.Values, e.vals[from:end:end])
		from = end
	}
	return nil
}

func malformedEval(h Header) error {
	return fmt.Errorf("node: %w: %s frame of agent %d, round %d phase %d: body does not follow its layout", ErrMalformedFrame, h.Kind, h.From, h.Round, h.Phase)
}
