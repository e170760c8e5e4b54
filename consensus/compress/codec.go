package compress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Kind is the wire form of a message's values.
type Kind uint8

// Kinds of Encoding.
const (
	// Dense carries every value as its 8-byte IEEE 754 bit pattern (the
	// zero Encoding).
	Dense Kind = 0
	// Sparse carries the values whose bit pattern is not zero (a -0 is
	// kept): their indices and values.
	Sparse Kind = 1
	// Quantized carries values of the form +-l*Scale with integer levels
	// 0 <= l <= 2^Bits - 1: the levels, the signs and the scale.
	Quantized Kind = 2
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Dense:
		return "dense"
	case Sparse:
		return "sparse"
	case Quantized:
		return "quantized"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MaxBits is the largest level width of a Quantized encoding.
const MaxBits = 16

// Encoding says how a message's values travel on the wire. The zero value
// is Dense. The compression operators return the Encoding of the q they
// compute; an algorithm puts it on the message (consensus.Msg.Enc).
type Encoding struct {
	// Kind is the wire form.
	Kind Kind
	// Bits is b, the width of a level of a Quantized encoding, 1 <= b <=
	// MaxBits; 0 for the other kinds.
	Bits int
	// Scale is the step between the levels of a Quantized encoding:
	// every value is exactly float64(l) * Scale or its negation, l in
	// 0..2^Bits-1. It is finite and >= 0; 0 for the other kinds.
	Scale float64
}

// Compact reports whether e is a compact (not Dense) encoding.
func (e Encoding) Compact() bool { return e.Kind != Dense }

// ErrMalformed is wrapped by every DecodePayload and CheckPayload error.
var ErrMalformed = errors.New("malformed compact payload")

// Payload layout (integers as unsigned LEB128 varints, floats as 8
// little-endian bytes of their IEEE 754 bit pattern):
//
//	Sparse:    kind (1 byte) | n | k | k index gaps | k values
//	Quantized: kind (1 byte) | n | b (1 byte) | scale | levels | signs
//
// n is the vector's length. The Sparse index gaps are i_0, i_1-i_0-1,
// ..., strictly increasing indices below n, and no value's bit pattern
// is zero. The Quantized levels are n b-bit fields and the signs n bits,
// each packed least significant bit first into ceil(n b / 8) and
// ceil(n / 8) bytes, unused high bits zero. Every payload has exactly
// one encoding of its vector, so decoding and encoding again gives the
// same bytes.

// check reports why v does not fit e, or nil.
func check(e Encoding, v []float64) error {
	switch e.Kind {
	case Dense, Sparse:
		if e.Bits != 0 || e.Scale != 0 {
			return fmt.Errorf("compress: %s encoding with bits %d and scale %v: both must be 0", e.Kind, e.Bits, e.Scale)
		}
		return nil
	case Quantized:
	default:
		return fmt.Errorf("compress: unknown encoding kind %d", uint8(e.Kind))
	}
	if e.Bits < 1 || e.Bits > MaxBits {
		return fmt.Errorf("compress: quantized encoding with %d bits: need 1..%d", e.Bits, MaxBits)
	}
	if !(e.Scale >= 0) || math.IsInf(e.Scale, 1) || math.Signbit(e.Scale) {
		return fmt.Errorf("compress: quantized encoding with scale %v: need a finite scale >= 0", e.Scale)
	}
	top := uint64(1)<<e.Bits - 1
	for l, x := range v {
		if _, ok := level(x, e.Scale, top); !ok {
			return fmt.Errorf("compress: value %d = %v is not a level of scale %v with %d bits", l, x, e.Scale, e.Bits)
		}
	}
	return nil
}

// level returns the level L of x = +-float64(L)*scale, L <= top, and
// whether x has that form bit for bit.
func level(x, scale float64, top uint64) (uint64, bool) {
	a := math.Abs(x)
	if scale == 0 {
		return 0, a == 0
	}
	r := math.Round(a / scale)
	if !(r <= float64(top)) {
		return 0, false
	}
	L := uint64(r)
	return L, math.Float64bits(float64(L)*scale) == math.Float64bits(a)
}

// quantValue is the value of level L with sign neg at scale: the one
// expression the quantizer, the decoder and check share.
func quantValue(L uint64, neg bool, scale float64) float64 {
	v := float64(L) * scale
	if neg {
		return -v
	}
	return v
}

// PayloadLen returns the number of bytes the values v of a message take on
// the wire under e: 8 len(v) for Dense, the length AppendPayload writes
// otherwise. It is the one function every driver and transport uses to
// count a message's values; it fails when v does not fit e.
func PayloadLen(e Encoding, v []float64) (int, error) {
	if err := check(e, v); err != nil {
		return 0, err
	}
	return payloadLen(e, v), nil
}

// payloadLen is PayloadLen for a v that fits e.
func payloadLen(e Encoding, v []float64) int {
	n := len(v)
	switch e.Kind {
	case Sparse:
		size, k, prev := 1+uvarintLen(uint64(n)), 0, -1
		for l, x := range v {
			if math.Float64bits(x) != 0 {
				size += uvarintLen(uint64(l-prev-1)) + 8
				k++
				prev = l
			}
		}
		return size + uvarintLen(uint64(k))
	case Quantized:
		return 1 + uvarintLen(uint64(n)) + 1 + 8 + (n*e.Bits+7)/8 + (n+7)/8
	}
	return 8 * n
}

// AppendPayload appends the compact payload of v under e (Sparse or
// Quantized) to dst and returns the extended slice. It fails, appending
// nothing, when e is Dense (a dense message needs no payload of this
// package) or v does not fit e.
func AppendPayload(dst []byte, e Encoding, v []float64) ([]byte, error) {
	if e.Kind == Dense {
		return dst, errors.New("compress: a dense message has no compact payload")
	}
	if err := check(e, v); err != nil {
		return dst, err
	}
	start := len(dst)
	need := payloadLen(e, v)
	if cap(dst)-start < need {
		grown := make([]byte, start, start+need)
		copy(grown, dst)
		dst = grown
	}
	dst = append(dst, byte(e.Kind))
	dst = binary.AppendUvarint(dst, uint64(len(v)))
	if e.Kind == Sparse {
		k := 0
		for _, x := range v {
			if math.Float64bits(x) != 0 {
				k++
			}
		}
		dst = binary.AppendUvarint(dst, uint64(k))
		prev := -1
		for l, x := range v {
			if math.Float64bits(x) != 0 {
				dst = binary.AppendUvarint(dst, uint64(l-prev-1))
				prev = l
			}
		}
		for _, x := range v {
			if b := math.Float64bits(x); b != 0 {
				dst = binary.LittleEndian.AppendUint64(dst, b)
			}
		}
		return dst, nil
	}
	dst = append(dst, byte(e.Bits))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.Scale))
	top := uint64(1)<<e.Bits - 1
	var w bitWriter
	for _, x := range v {
		L, _ := level(x, e.Scale, top)
		dst = w.put(dst, L, e.Bits)
	}
	dst = w.flush(dst)
	for _, x := range v {
		var s uint64
		if math.Signbit(x) {
			s = 1
		}
		dst = w.put(dst, s, 1)
	}
	return w.flush(dst), nil
}

// DecodePayload decodes a compact payload into dst, reusing its storage,
// and returns the values, bit for bit those AppendPayload encoded, and
// their encoding. A payload longer than maxN values, or malformed in any
// way (unknown kind, truncated, trailing bytes, indices out of order or
// range, a zero value in a Sparse payload, a level width outside
// 1..MaxBits, a negative or non-finite scale, non-zero padding bits), is
// an error wrapping ErrMalformed, and dst is returned empty.
func DecodePayload(dst []float64, p []byte, maxN int) ([]float64, Encoding, error) {
	var e Encoding
	n, err := parse(p, maxN, &e, nil)
	if err != nil {
		return dst[:0], Encoding{}, err
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	clear(dst)
	if _, err := parse(p, maxN, &e, dst); err != nil {
		return dst[:0], Encoding{}, err // not reached: the first parse checked p
	}
	return dst, e, nil
}

// CheckPayload validates a compact payload as DecodePayload does, without
// decoding it, and returns the length of its vector.
func CheckPayload(p []byte, maxN int) (int, error) {
	var e Encoding
	return parse(p, maxN, &e, nil)
}

// parse reads payload p into its encoding e and, when out is non-nil (of
// the payload's length, zeroed), its values; it returns the length n.
// One parser serves CheckPayload and DecodePayload, so a payload that
// checks decodes.
func parse(p []byte, maxN int, e *Encoding, out []float64) (int, error) {
	r := reader{p: p}
	kind := Kind(r.byte())
	n := r.count(maxN, "length")
	if r.err != nil {
		return 0, r.err
	}
	*e = Encoding{Kind: kind}
	switch kind {
	case Sparse:
		k := r.count(n, "entry count")
		prev := -1
		idx := r.p // the gaps, read again below with the values
		for range k {
			gap := r.uvarint()
			if r.err == nil && gap >= uint64(n-prev-1) {
				r.fail("index %d beyond length %d", uint64(prev+1)+gap, n)
			}
			if r.err != nil {
				return 0, r.err
			}
			prev += int(gap) + 1
		}
		vals := r.take(8 * k)
		if r.err != nil {
			return 0, r.err
		}
		gaps, prev := reader{p: idx}, -1
		for j := range k {
			prev += int(gaps.uvarint()) + 1
			b := binary.LittleEndian.Uint64(vals[8*j:])
			if b == 0 {
				return 0, fmt.Errorf("compress: %w: entry %d (index %d) is +0, which a sparse payload leaves out", ErrMalformed, j, prev)
			}
			if out != nil {
				out[prev] = math.Float64frombits(b)
			}
		}
	case Quantized:
		b := int(r.byte())
		sb := r.take(8)
		if r.err != nil {
			return 0, r.err
		}
		scale := math.Float64frombits(binary.LittleEndian.Uint64(sb))
		switch {
		case b < 1 || b > MaxBits:
			return 0, fmt.Errorf("compress: %w: level width %d bits, want 1..%d", ErrMalformed, b, MaxBits)
		case !(scale >= 0) || math.IsInf(scale, 1) || math.Signbit(scale):
			return 0, fmt.Errorf("compress: %w: scale %v, want a finite number >= 0", ErrMalformed, scale)
		}
		*e = Encoding{Kind: Quantized, Bits: b, Scale: scale}
		levels, signs := r.take((n*b+7)/8), r.take((n+7)/8)
		if r.err != nil {
			return 0, r.err
		}
		if err := padding(levels, n*b); err != nil {
			return 0, fmt.Errorf("compress: %w: levels: %v", ErrMalformed, err)
		}
		if err := padding(signs, n); err != nil {
			return 0, fmt.Errorf("compress: %w: signs: %v", ErrMalformed, err)
		}
		// A level whose value does not give it back (any level at scale
		// 0, or one whose product with the scale rounds or overflows)
		// has no canonical encoding: malformed.
		lv, sg, top := bitReader{p: levels}, bitReader{p: signs}, uint64(1)<<b-1
		for l := range n {
			L := lv.get(b)
			v := quantValue(L, sg.get(1) == 1, scale)
			if back, ok := level(v, scale, top); !ok || back != L {
				return 0, fmt.Errorf("compress: %w: entry %d: level %d at scale %v is not exact", ErrMalformed, l, L, scale)
			}
			if out != nil {
				out[l] = v
			}
		}
	default:
		return 0, fmt.Errorf("compress: %w: unknown encoding kind %d", ErrMalformed, uint8(kind))
	}
	if len(r.p) != 0 {
		return 0, fmt.Errorf("compress: %w: %d bytes after the %s payload", ErrMalformed, len(r.p), kind)
	}
	return n, nil
}

// padding checks that the bits of p beyond the first used are zero.
func padding(p []byte, used int) error {
	if r := used % 8; r != 0 && p[len(p)-1]>>r != 0 {
		return errors.New("non-zero padding bits")
	}
	return nil
}

// reader consumes a payload, keeping the first error.
type reader struct {
	p   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("compress: %w: "+format, append([]any{ErrMalformed}, args...)...)
	}
}

func (r *reader) byte() byte {
	b := r.take(1)
	if r.err != nil {
		return 0
	}
	return b[0]
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.p) {
		r.fail("truncated: %d bytes left, %d needed", len(r.p), n)
		return nil
	}
	b := r.p[:n]
	r.p = r.p[n:]
	return b
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.p)
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	if k != uvarintLen(v) {
		r.fail("varint of %d bytes for %d", k, v)
		return 0
	}
	r.p = r.p[k:]
	return v
}

// count reads a varint that must not exceed limit.
func (r *reader) count(limit int, what string) int {
	v := r.uvarint()
	if r.err == nil && v > uint64(limit) {
		r.fail("%s %d exceeds %d", what, v, limit)
	}
	if r.err != nil {
		return 0
	}
	return int(v)
}

// uvarintLen is the length of the unsigned varint of v.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// bitWriter packs fields least significant bit first.
type bitWriter struct {
	acc uint64
	n   int
}

func (w *bitWriter) put(dst []byte, v uint64, width int) []byte {
	w.acc |= v << w.n
	w.n += width
	for w.n >= 8 {
		dst = append(dst, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
	return dst
}

func (w *bitWriter) flush(dst []byte) []byte {
	if w.n > 0 {
		dst = append(dst, byte(w.acc))
	}
	w.acc, w.n = 0, 0
	return dst
}

// bitReader unpacks what bitWriter packed.
type bitReader struct {
	p   []byte
	acc uint64
	n   int
}

func (r *bitReader) get(width int) uint64 {
	for r.n < width {
		r.acc |= uint64(r.p[0]) << r.n
		r.p = r.p[1:]
		r.n += 8
	}
	v := r.acc & (1<<width - 1)
	r.acc >>= width
	r.n -= width
	return v
}
