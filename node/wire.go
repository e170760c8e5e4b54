package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Wire format of the agent-to-agent frames (all integers little-endian):
//
//	offset  size    field
//	0       1       version (FrameVersion = 1)
//	1       1       kind    (1 data, 2 reduce term, 3 leave, 4 reduce sum,
//	                         5 eval requests, 6 eval results, 7 eval failure,
//	                         8 compact data)
//	2       4       from    uint32, the sending agent's id (for eval
//	                        results and failures: the requesting agent's)
//	6       4       round   uint32
//	10      2       phase   uint16
//	12      4       count   uint32, number of 8-byte values that follow
//	                        (compact data: number of payload bytes)
//	16      2       nto     uint16, number of destination ids that follow
//	18      4*nto   to      uint32 each: the agents the frame is for; none
//	                        (nto = 0) addresses every agent of the run
//	18+4nto 8*count values, IEEE 754 binary64 bit patterns (compact
//	                data: count bytes, the payload of
//	                compress.AppendPayload)
//
// A frame is exactly HeaderLen+4*nto+8*count bytes long (compact data:
// HeaderLen+4*nto+count). One frame with
// several destinations carries the same values to each of them: an agent
// that sends the same x_i to all its neighbours publishes it once. A leave
// frame carries no values; its (round, phase) is the first phase its
// sender skips. The eval frames carry count 8-byte words whose layout is
// given in wire_eval.go and no destination list (results go to the agent
// named by from); DecodeHeader checks only their length.
//
// On NATS every frame travels in an envelope that appends an HMAC-SHA256
// of the frame under the run key (see mac.go); the round loop never sees
// the envelope.

// FrameVersion is the version byte of the frames this package writes and
// the only one it reads.
const FrameVersion = 1

// FrameKind says what an agent-to-agent frame carries.
type FrameKind uint8

const (
	// FrameData carries a consensus.Msg from one agent to the agents of
	// its destination list (the same values to each).
	FrameData FrameKind = 1
	// FrameReduce carries an agent's term of an all-reduce to the root of
	// the reduce (see reduceRoot).
	FrameReduce FrameKind = 2
	// FrameLeave announces that the sender exchanges nothing from
	// (Round, Phase) on; peers stop waiting for it.
	FrameLeave FrameKind = 3
	// FrameSum carries the reduce sum from the root to every agent: it is
	// broadcast for the all-reduce and addressed to the other members for
	// a group reduce.
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
	// FrameCompact carries a consensus.Msg whose values travel in a
	// compact encoding (consensus.Msg.Enc): its count is the length in
	// bytes of the compress payload that follows the destination list,
	// which DecodeHeader checks in full (see AppendDataTo).
	FrameCompact FrameKind = 8
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
	case FrameCompact:
		return "compact"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// known reports whether k is one of the frame kinds above.
func (k FrameKind) known() bool { return k >= FrameData && k <= FrameCompact }

// eval reports whether k is one of the eval kinds, which travel between
// agents and oracle workers.
func (k FrameKind) eval() bool { return k >= FrameEval && k <= FrameEvalFail }

// data reports whether k carries a consensus.Msg (FrameData or
// FrameCompact).
func (k FrameKind) data() bool { return k == FrameData || k == FrameCompact }

// HeaderLen is the length of the fixed part of a frame header in bytes;
// the destination list follows it.
const HeaderLen = 18

// Largest values the header fields can carry.
const (
	MaxFrameID    = math.MaxUint32
	MaxFrameRound = math.MaxUint32
	MaxFramePhase = math.MaxUint16
	// MaxFrameTo is the longest destination list of a frame.
	MaxFrameTo = math.MaxUint16
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
	// Count is the number of float64 values after the header; for
	// FrameCompact, the length of the compact payload in bytes.
	Count int
	// NTo is the length of the destination list; zero addresses every
	// agent. FrameTo reads its entries.
	NTo int
}

// body returns the offset of the values.
func (h Header) body() int { return HeaderLen + 4*h.NTo }

// ErrMalformedFrame is wrapped by every decoding error.
var ErrMalformedFrame = errors.New("malformed frame")

// AppendFrame appends the frame (kind, from, round, phase, data) addressed
// to every agent of the run (an empty destination list) to dst and
// returns the extended slice. It allocates only when dst lacks capacity,
// so a caller that keeps the returned buffer and passes buf[:0] next time
// encodes without allocating. For the eval kinds data holds the raw words
// of the body; AppendEvalChunk, AppendEvalResults and AppendEvalFail build
// them. A compact data frame is written by AppendDataTo.
func AppendFrame(dst []byte, kind FrameKind, from, round, phase int, data []float64) ([]byte, error) {
	return AppendFrameTo(dst, kind, from, nil, round, phase, data)
}

// AppendFrameTo is AppendFrame for the agents of the destination list to
// (every agent when to is empty). Eval frames take no list.
func AppendFrameTo(dst []byte, kind FrameKind, from int, to []int, round, phase int, data []float64) ([]byte, error) {
	switch {
	case !kind.known() || kind == FrameCompact:
		return dst, fmt.Errorf("node: encode frame: unknown kind %d", uint8(kind))
	case kind == FrameLeave && len(data) != 0:
		return dst, fmt.Errorf("node: encode leave frame: carries %d values, want 0", len(data))
	case kind.eval() && len(to) != 0:
		return dst, fmt.Errorf("node: encode %s frame: destination list %v: eval frames take none", kind, to)
	}
	if err := checkFrame(kind, from, to, round, phase, len(data)); err != nil {
		return dst, err
	}
	dst, b := growFrame(dst, kind, from, to, round, phase, len(data), 8*len(data))
	p := b[HeaderLen+4*len(to):]
	for i, v := range data {
		binary.LittleEndian.PutUint64(p[8*i:], math.Float64bits(v))
	}
	return dst, nil
}

// checkFrame checks the header fields of a frame of kind to the
// destinations to that declares count (values, or payload bytes).
func checkFrame(kind FrameKind, from int, to []int, round, phase, count int) error {
	if err := checkFields(kind, from, round, phase, count); err != nil {
		return err
	}
	if len(to) > MaxFrameTo {
		return fmt.Errorf("node: encode %s frame: %d destinations exceed the limit %d", kind, len(to), MaxFrameTo)
	}
	for _, j := range to {
		if j < 0 || uint64(j) > MaxFrameID {
			return fmt.Errorf("node: encode %s frame: destination %d outside [0, %d]", kind, j, uint64(MaxFrameID))
		}
	}
	return nil
}

// frameLen is the length of a frame with nto destinations and count
// values.
func frameLen(nto, count int) int { return HeaderLen + 4*nto + 8*count }

// growFrame extends dst by a frame with destinations to whose header
// declares count and whose body has the given number of bytes, writes
// its header and list, and returns the extended slice and the frame's
// bytes. The fields are valid.
func growFrame(dst []byte, kind FrameKind, from int, to []int, round, phase, count, body int) ([]byte, []byte) {
	n := HeaderLen + 4*len(to) + body
	start := len(dst)
	if cap(dst)-start < n {
		grown := make([]byte, start, start+n)
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:start+n]
	b := dst[start:]
	b[0] = FrameVersion
	b[1] = byte(kind)
	binary.LittleEndian.PutUint32(b[2:], uint32(from))
	binary.LittleEndian.PutUint32(b[6:], uint32(round))
	binary.LittleEndian.PutUint16(b[10:], uint16(phase))
	binary.LittleEndian.PutUint32(b[12:], uint32(count))
	binary.LittleEndian.PutUint16(b[16:], uint16(len(to)))
	for k, j := range to {
		binary.LittleEndian.PutUint32(b[HeaderLen+4*k:], uint32(j))
	}
	return dst, b
}

// decodeAddress parses the part of a frame that routes it: version, kind,
// sender and destination list. It checks that the list fits in frame,
// not the rest; transports use it to deliver frames, DecodeHeader to
// start.
func decodeAddress(frame []byte) (Header, error) {
	if len(frame) < HeaderLen {
		return Header{}, fmt.Errorf("node: %w: %d bytes, shorter than the %d-byte header", ErrMalformedFrame, len(frame), HeaderLen)
	}
	if frame[0] != FrameVersion {
		return Header{}, fmt.Errorf("node: %w: version %d, want %d", ErrMalformedFrame, frame[0], FrameVersion)
	}
	h := Header{
		Kind:  FrameKind(frame[1]),
		From:  int(binary.LittleEndian.Uint32(frame[2:])),
		Round: int(binary.LittleEndian.Uint32(frame[6:])),
		Phase: int(binary.LittleEndian.Uint16(frame[10:])),
		Count: int(binary.LittleEndian.Uint32(frame[12:])),
		NTo:   int(binary.LittleEndian.Uint16(frame[16:])),
	}
	if len(frame) < h.body() {
		return Header{}, fmt.Errorf("node: %w: %d destinations in %d bytes", ErrMalformedFrame, h.NTo, len(frame))
	}
	return h, nil
}

// FrameTo returns entry k of the destination list of frame, whose header
// h was returned by DecodeHeader.
func FrameTo(frame []byte, h Header, k int) int {
	return int(binary.LittleEndian.Uint32(frame[HeaderLen+4*k:]))
}

// DecodeHeader parses and validates the header of frame: the version, a
// known kind, no values on a leave frame, no destination list on an eval
// frame, and a total length of exactly HeaderLen+4*NTo+8*Count; for a
// compact data frame HeaderLen+4*NTo+Count and a payload that decodes
// (compress.CheckPayload).
func DecodeHeader(frame []byte) (Header, error) {
	h, err := decodeAddress(frame)
	if err != nil {
		return Header{}, err
	}
	switch h.Kind {
	case FrameData, FrameReduce, FrameSum:
	case FrameCompact:
		return h, checkCompact(frame, h)
	case FrameEval, FrameEvalResult, FrameEvalFail:
		if h.NTo != 0 {
			return Header{}, fmt.Errorf("node: %w: %s frame from agent %d has %d destinations", ErrMalformedFrame, h.Kind, h.From, h.NTo)
		}
	case FrameLeave:
		if h.Count != 0 {
			return Header{}, fmt.Errorf("node: %w: leave frame from agent %d declares %d values", ErrMalformedFrame, h.From, h.Count)
		}
	default:
		return Header{}, fmt.Errorf("node: %w: unknown kind %d", ErrMalformedFrame, frame[1])
	}
	if h.Count > maxFrameCount || len(frame) != h.body()+8*h.Count {
		return Header{}, fmt.Errorf("node: %w: %s frame from agent %d declares %d values and %d destinations in %d bytes",
			ErrMalformedFrame, h.Kind, h.From, h.Count, h.NTo, len(frame))
	}
	return h, nil
}

// DecodeValues writes the values of a frame whose header h was returned by
// DecodeHeader into dst, reusing its storage, and returns it.
func DecodeValues(dst []float64, frame []byte, h Header) []float64 {
	if h.Kind == FrameCompact {
		return compactValues(dst, frame, h)
	}
	if cap(dst) < h.Count {
		dst = make([]float64, h.Count)
	}
	dst = dst[:h.Count]
	p := frame[h.body() : h.body()+8*len(dst)]
	for i := range dst {
		// A closed 8-byte window: one bounds check per value, not two.
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i : 8*i+8]))
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
