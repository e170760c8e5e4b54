package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/consim/consim/consensus"
)

// Wire format of a status frame (EncodeStatus, DecodeStatus). Integers are
// varints (encoding/binary: zig-zag for signed, "uvarint" for lengths and
// counts), floats IEEE 754 binary64 bit patterns in 8 little-endian bytes,
// a string a uvarint length and its bytes, a float list a uvarint count
// and its floats:
//
//	format   1 byte, StatusFormat
//	kind     1 byte: 1 ready, 2 progress, 3 final, 4 failed, 5 departed, 6 alive
//	id       varint
//	pid      varint
//	err      string
//	stop     string
//	scenario string
//	report   id varint, round varint, grad_evals varint, x float list,
//	         measures float list, edge_duals: uvarint count, then per
//	         dual peer varint, version varint, y float list
//	traffic  uvarint count of counters (trafficCounters), the counters as
//	         varints in the order of trafficFields, then dropouts_by_peer
//	         and injected_loss_by_peer (uvarint count, then key and value
//	         varints by ascending key) and refused_by_subject (uvarint
//	         count, then subject string and value varint by ascending
//	         subject)
//
// A frame is exactly as long as its fields; a count larger than the bytes
// left could hold, a trailing byte or an unknown kind make it malformed.
// The JSON form of Status (its struct tags) is what docs/protocol.md
// names the fields by; the bus carries this form, which costs a
// coordinator at one status per agent and round a small fraction of JSON.

// StatusFormat is the first byte of a status frame, the only format
// DecodeStatus reads.
const StatusFormat = 2

// statusKinds are the kinds in wire order (code k+1).
var statusKinds = [...]StatusKind{StatusReady, StatusProgress, StatusFinal, StatusFailed, StatusDeparted, StatusAlive}

// trafficFields returns the counters of t in wire order. Every int64
// field of Traffic is here (TestTrafficFieldsComplete).
func trafficFields(t *Traffic) []*int64 {
	return []*int64{
		&t.MsgsSent, &t.BytesSent, &t.MsgsRecv, &t.BytesRecv,
		&t.Dropouts, &t.ReduceMissing, &t.Late, &t.Unexpected, &t.Malformed,
		&t.InjectedLoss, &t.Delayed, &t.StaleUsed, &t.DroppedWhileDown,
		&t.Evals, &t.EvalFrames, &t.EvalBytes, &t.EvalRetries, &t.EvalMissing,
		&t.Ahead, &t.Overflow,
		&t.Refused, &t.BusMalformed, &t.InboxOverflow, &t.SlowConsumer,
	}
}

// trafficCounters is len(trafficFields(t)).
const trafficCounters = 24

// EncodeStatus returns the frame of s.
func EncodeStatus(s Status) ([]byte, error) {
	code := slices.Index(statusKinds[:], s.Kind)
	if code < 0 {
		return nil, fmt.Errorf("node: encode status of agent %d: unknown kind %q", s.ID, s.Kind)
	}
	b := make([]byte, 0, 96+len(s.Scenario)+8*(len(s.Report.X)+len(s.Report.Measures)))
	b = append(b, StatusFormat, byte(code+1))
	b = binary.AppendVarint(b, int64(s.ID))
	b = binary.AppendVarint(b, int64(s.PID))
	b = appendString(b, s.Err)
	b = appendString(b, s.Stop)
	b = appendString(b, s.Scenario)

	r := &s.Report
	b = binary.AppendVarint(b, int64(r.ID))
	b = binary.AppendVarint(b, int64(r.Round))
	b = binary.AppendVarint(b, r.GradEvals)
	b = appendFloats(b, r.X)
	b = appendFloats(b, r.Measures)
	b = binary.AppendUvarint(b, uint64(len(r.EdgeDuals)))
	for _, d := range r.EdgeDuals {
		b = binary.AppendVarint(b, int64(d.Peer))
		b = binary.AppendVarint(b, d.Version)
		b = appendFloats(b, d.Y)
	}

	t := s.Traffic
	b = binary.AppendUvarint(b, trafficCounters)
	for _, c := range trafficFields(&t) {
		b = binary.AppendVarint(b, *c)
	}
	b = appendIntCounts(b, t.DropoutsByPeer)
	b = appendIntCounts(b, t.InjectedLossByPeer)
	keys := slices.Sorted(maps.Keys(t.RefusedBySubject))
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = binary.AppendVarint(b, t.RefusedBySubject[k])
	}
	return b, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendFloats(b []byte, v []float64) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func appendIntCounts(b []byte, m map[int]int64) []byte {
	keys := slices.Sorted(maps.Keys(m))
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = binary.AppendVarint(b, int64(k))
		b = binary.AppendVarint(b, m[k])
	}
	return b
}

// errStatusShort is the error of a status frame that ends inside a field.
var errStatusShort = errors.New("truncated")

// statusReader reads the fields of a status frame; the first error sticks
// and every later read returns zero values.
type statusReader struct {
	b   []byte
	err error
}

func (r *statusReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *statusReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errStatusShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *statusReader) int() int {
	v := r.varint()
	if v != int64(int(v)) {
		r.fail(fmt.Errorf("integer %d out of range", v))
	}
	return int(v)
}

// count reads a uvarint count of items of at least size bytes each.
func (r *statusReader) count(size int) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errStatusShort)
		return 0
	}
	r.b = r.b[n:]
	if v > uint64(len(r.b)/size) {
		r.fail(fmt.Errorf("%d items of %d bytes in %d bytes", v, size, len(r.b)))
		return 0
	}
	return int(v)
}

func (r *statusReader) string() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// floats reads a float list; an empty one is nil.
func (r *statusReader) floats() []float64 {
	n := r.count(8)
	if r.err != nil || n == 0 {
		return nil
	}
	v := make([]float64, n)
	for k := range v {
		v[k] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*k:]))
	}
	r.b = r.b[8*n:]
	return v
}

// intCounts reads a map of int keys; an empty one is nil.
func (r *statusReader) intCounts() map[int]int64 {
	n := r.count(2)
	if r.err != nil || n == 0 {
		return nil
	}
	m := make(map[int]int64, n)
	for range n {
		k := r.int()
		m[k] = r.varint()
	}
	return m
}

// DecodeStatus parses a status frame (see StatusFormat), rejecting unknown
// kinds and formats, truncated frames and trailing bytes.
func DecodeStatus(frame []byte) (Status, error) {
	if len(frame) < 2 || frame[0] != StatusFormat {
		return Status{}, fmt.Errorf("node: malformed status frame: %d bytes without the format byte %d", len(frame), StatusFormat)
	}
	code := int(frame[1]) - 1
	if code < 0 || code >= len(statusKinds) {
		return Status{}, fmt.Errorf("node: malformed status frame: kind %d: want 1 (ready) to %d (alive)", frame[1], len(statusKinds))
	}
	r := &statusReader{b: frame[2:]}
	s := Status{Kind: statusKinds[code], ID: r.int(), PID: r.int(), Err: r.string(), Stop: r.string(), Scenario: r.string()}

	rep := &s.Report
	rep.ID, rep.Round, rep.GradEvals = r.int(), r.int(), r.varint()
	rep.X, rep.Measures = r.floats(), r.floats()
	if n := r.count(3); n > 0 {
		rep.EdgeDuals = make([]consensus.EdgeDual, n)
		for k := range rep.EdgeDuals {
			d := &rep.EdgeDuals[k]
			d.Peer, d.Version = r.int(), r.varint()
			d.Y = r.floats()
		}
	}

	t := &s.Traffic
	if n := r.count(1); r.err == nil && n != trafficCounters {
		r.fail(fmt.Errorf("%d traffic counters, want %d", n, trafficCounters))
	}
	for _, c := range trafficFields(t) {
		*c = r.varint()
	}
	t.DropoutsByPeer, t.InjectedLossByPeer = r.intCounts(), r.intCounts()
	if n := r.count(2); n > 0 {
		t.RefusedBySubject = make(map[string]int64, n)
		for range n {
			k := r.string()
			t.RefusedBySubject[k] = r.varint()
		}
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail(fmt.Errorf("%d bytes after the last field", len(r.b)))
	}
	if r.err != nil {
		return Status{}, fmt.Errorf("node: malformed %s status frame of agent %d: %w", s.Kind, s.ID, r.err)
	}
	return s, nil
}
