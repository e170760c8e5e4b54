package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Wire format of the agent-to-agent frames (all integers little-endian):
//
//	offset  size  field
//	0       1     kind   (1 data, 2 reduce term, 3 leave, 4 reduce sum,
//	                      5 eval requests, 6 eval results, 7 eval failure)
//	1       4     from   uint32, the sending agent's id (for eval
//	                      results and failures: the requesting agent's)
//	5       4     round  uint32
//	9       2     phase  uint16
//	11      4     count  uint32, number of float64 values that follow
//	15      8*count values, IEEE 754 binary64 bit patterns
//
// A frame is exactly HeaderLen+8*count bytes long. A leave frame carries no
// values; its (round, phase) is the first phase its sender skips. The
// eval frames carry count 8-byte words whose layout is given in
// wire_eval.go; DecodeHeader checks only their length.

// FrameKind says what an agent-to-agent frame carries.
type FrameKind uint8

const (
	// FrameData carries a consensus.Msg from one agent to another.
	FrameData FrameKind = 1
	// FrameReduce carries an agent's term of an all-reduce to the root of
	// the reduce (see reduceRoot).
	FrameReduce FrameKind = 2
	// FrameLeave announces that the sender exchanges nothing from
	// (Round, Phase) on; peers stop waiting for it.
	FrameLeave FrameKind = 3
	// FrameSum carries the reduce sum from the root to every agent: it is
	// broadcast for the all-reduce and sent to each member for a group
	// reduce.
	FrameSum FrameKind = 4
	// FrameEval carries a chunk of an agent's evaluation requests to the
	// oracle workers (see AppendEvalChunk).
	FrameEval FrameKind = 5
	// FrameEvalResult carries the values of a range of evaluation
	// requests from an oracle worker to the requesting agent (see
	// AppendEvalResults).
	FrameEvalResult FrameKind = 6
	// FrameEvalFail tells the requesting agent that an oracle worker
	// could not evaluate one of its requests (see AppendEvalFail).
	FrameEvalFail FrameKind = 7
)

// String returns the kind's name.
func (k FrameKind) String() string {
	switch k {
	case FrameData:
		return "data"
	case FrameReduce:
		return "reduce"
	case FrameLeave:
		return "leave"
	case FrameSum:
		return "sum"
	case FrameEval:
		return "eval"
	case FrameEvalResult:
		return "eval-result"
	case FrameEvalFail:
		return "eval-fail"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// known reports whether k is one of the frame kinds above.
func (k FrameKind) known() bool { return k >= FrameData && k <= FrameEvalFail }

// HeaderLen is the length of a frame header in bytes.
const HeaderLen = 15

// Largest values the header fields can carry.
const (
	MaxFrameID    = math.MaxUint32
	MaxFrameRound = math.MaxUint32
	MaxFramePhase = math.MaxUint16
)

// maxFrameCount bounds the value count a frame may declare, so that a
// corrupt header never asks for more than 1 GiB.
const maxFrameCount = 1 << 27

// Header is the fixed part of a frame.
type Header struct {
	Kind  FrameKind
	From  int
	Round int
	Phase int
	// Count is the number of float64 values after the header.
	Count int
}

// ErrMalformedFrame is wrapped by every decoding error.
var ErrMalformedFrame = errors.New("malformed frame")

// AppendFrame appends the frame (kind, from, round, phase, data) to dst and
// returns the extended slice. It allocates only when dst lacks capacity, so
// a caller that keeps the returned buffer and passes buf[:0] next time
// encodes without allocating. For the eval kinds data holds the raw words
// of the body; AppendEvalChunk, AppendEvalResults and AppendEvalFail build
// them.
func AppendFrame(dst []byte, kind FrameKind, from, round, phase int, data []float64) ([]byte, error) {
	switch {
	case !kind.known():
		return dst, fmt.Errorf("node: encode frame: unknown kind %d", uint8(kind))
	case kind == FrameLeave && len(data) != 0:
		return dst, fmt.Errorf("node: encode leave frame: carries %d values, want 0", len(data))
	case from < 0 || uint64(from) > MaxFrameID:
		return dst, fmt.Errorf("node: encode frame: agent id %d outside [0, %d]", from, uint64(MaxFrameID))
	case round < 0 || uint64(round) > MaxFrameRound:
		return dst, fmt.Errorf("node: encode frame: round %d outside [0, %d]", round, uint64(MaxFrameRound))
	case phase < 0 || phase > MaxFramePhase:
		return dst, fmt.Errorf("node: encode frame: phase %d outside [0, %d]", phase, MaxFramePhase)
	case len(data) > maxFrameCount:
		return dst, fmt.Errorf("node: encode frame: %d values exceed the limit %d", len(data), maxFrameCount)
	}
	n := HeaderLen + 8*len(data)
	start := len(dst)
	if cap(dst)-start < n {
		grown := make([]byte, start, start+n)
		copy(grown, dst)
		dst = grown
	}
	b := dst[start : start+n]
	b[0] = byte(kind)
	binary.LittleEndian.PutUint32(b[1:], uint32(from))
	binary.LittleEndian.PutUint32(b[5:], uint32(round))
	binary.LittleEndian.PutUint16(b[9:], uint16(phase))
	binary.LittleEndian.PutUint32(b[11:], uint32(len(data)))
	for i, v := range data {
		binary.LittleEndian.PutUint64(b[HeaderLen+8*i:], math.Float64bits(v))
	}
	return dst[:start+n], nil
}

// DecodeHeader parses and validates the header of frame: a known kind, no
// values on a leave frame, and a total length of exactly HeaderLen+8*Count.
func DecodeHeader(frame []byte) (Header, error) {
	if len(frame) < HeaderLen {
		return Header{}, fmt.Errorf("node: %w: %d bytes, shorter than the %d-byte header", ErrMalformedFrame, len(frame), HeaderLen)
	}
	h := Header{
		Kind:  FrameKind(frame[0]),
		From:  int(binary.LittleEndian.Uint32(frame[1:])),
		Round: int(binary.LittleEndian.Uint32(frame[5:])),
		Phase: int(binary.LittleEndian.Uint16(frame[9:])),
		Count: int(binary.LittleEndian.Uint32(frame[11:])),
	}
	switch h.Kind {
	case FrameData, FrameReduce, FrameSum, FrameEval, FrameEvalResult, FrameEvalFail:
	case FrameLeave:
		if h.Count != 0 {
			return Header{}, fmt.Errorf("node: %w: leave frame from agent %d declares %d values", ErrMalformedFrame, h.From, h.Count)
		}
	default:
		return Header{}, fmt.Errorf("node: %w: unknown kind %d", ErrMalformedFrame, frame[0])
	}
	if h.Count > maxFrameCount || len(frame) != HeaderLen+8*h.Count {
		return Header{}, fmt.Errorf("node: %w: %s frame from agent %d declares %d values in %d bytes", ErrMalformedFrame, h.Kind, h.From, h.Count, len(frame))
	}
	return h, nil
}

// DecodeValues writes the values of a frame whose header h was returned by
// DecodeHeader into dst, reusing its storage, and returns it.
func DecodeValues(dst []float64, frame []byte, h Header) []float64 {
	if cap(dst) < h.Count {
		dst = make([]float64, h.Count)
	}
	dst = dst[:h.Count]
	p := frame[HeaderLen : HeaderLen+8*h.Count]
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return dst
}

// DecodeFrame validates frame and returns its header and values; the
// values are written into dst, reusing its storage.
func DecodeFrame(dst []float64, frame []byte) (Header, []float64, error) {
	h, err := DecodeHeader(frame)
	if err != nil {
		return Header{}, dst[:0], err
	}
	return h, DecodeValues(dst, frame, h), nil
}
