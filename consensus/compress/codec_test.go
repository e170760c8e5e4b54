package compress

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

const maxTestN = 1 << 20

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// testVector returns a vector of n entries with a few exact zeros, a -0
// and values over many magnitudes.
func testVector(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for l := range x {
		x[l] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
	}
	if n > 3 {
		x[0], x[n/2], x[n-1] = 0, math.Copysign(0, -1), 0
	}
	return x
}

// operators returns one operator of each kind.
func operators() []Operator {
	return []Operator{&TopK{Fraction: 0.1}, &TopK{Fraction: 1}, &RandK{Fraction: 0.25}, QSGD{Bits: 4}, QSGD{Bits: 1}, QSGD{Bits: 16}, Identity{}}
}

// TestPayloadRoundTrip: for every operator and length, the payload of q
// has PayloadLen bytes and decodes to q's bits and encoding.
func TestPayloadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, op := range operators() {
		for _, n := range []int{1, 2, 7, 8, 9, 123, 1000, 70000} {
			x := testVector(rng, n)
			q := make([]float64, n)
			enc := op.Compress(x, q, rng)
			size, err := PayloadLen(enc, q)
			if err != nil {
				t.Fatalf("%v n=%d: PayloadLen: %v", op, n, err)
			}
			if enc.Kind == Dense {
				if size != 8*n {
					t.Errorf("%v n=%d: dense PayloadLen %d, want %d", op, n, size, 8*n)
				}
				if _, err := AppendPayload(nil, enc, q); err == nil {
					t.Errorf("%v: AppendPayload of a dense message succeeded", op)
				}
				continue
			}
			p, err := AppendPayload([]byte{0xAA}, enc, q)
			if err != nil {
				t.Fatalf("%v n=%d: AppendPayload: %v", op, n, err)
			}
			if p[0] != 0xAA || len(p)-1 != size {
				t.Fatalf("%v n=%d: payload of %d bytes after the prefix, PayloadLen %d", op, n, len(p)-1, size)
			}
			got, genc, err := DecodePayload(make([]float64, 3), p[1:], maxTestN)
			if err != nil {
				t.Fatalf("%v n=%d: DecodePayload: %v", op, n, err)
			}
			if !sameBits(got, q) || genc != enc {
				t.Fatalf("%v n=%d: decoded %v %v, sent %v %v", op, n, genc, got[:min(n, 5)], enc, q[:min(n, 5)])
			}
			if m, err := CheckPayload(p[1:], maxTestN); err != nil || m != n {
				t.Errorf("%v n=%d: CheckPayload = %d, %v", op, n, m, err)
			}
		}
	}
}

// TestCompactIsSmall: at n = 123 the payloads of top 10% and 4-bit qsgd
// take a fraction of the dense 984 bytes.
func TestCompactIsSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := testVector(rng, 123)
	q := make([]float64, 123)
	for _, tc := range []struct {
		op   Operator
		want int
	}{
		// 1 kind + 1 n + 1 k + 12 one-byte gaps + 12*8 values
		{&TopK{Fraction: 0.1}, 111},
		// 1 kind + 1 n + 1 bits + 8 scale + ceil(123*4/8) + ceil(123/8)
		{QSGD{Bits: 4}, 1 + 1 + 1 + 8 + 62 + 16},
	} {
		enc := tc.op.Compress(x, q, rng)
		if got, _ := PayloadLen(enc, q); got != tc.want {
			t.Errorf("%v: payload %d bytes, want %d", tc.op, got, tc.want)
		}
	}
}

// TestPayloadRejectsMisfits: a vector that is not of its encoding's form
// is refused, naming the value.
func TestPayloadRejectsMisfits(t *testing.T) {
	for _, tc := range []struct {
		name string
		enc  Encoding
		v    []float64
		want string
	}{
		{"not a level", Encoding{Kind: Quantized, Bits: 4, Scale: 0.5}, []float64{1, 0.7}, "value 1 = 0.7 is not a level"},
		{"level too high", Encoding{Kind: Quantized, Bits: 2, Scale: 1}, []float64{3, -4}, "value 1 = -4"},
		{"zero scale", Encoding{Kind: Quantized, Bits: 2}, []float64{0, 1}, "value 1 = 1"},
		{"nan", Encoding{Kind: Quantized, Bits: 2, Scale: 1}, []float64{math.NaN()}, "value 0 = NaN"},
		{"bits", Encoding{Kind: Quantized, Bits: 17, Scale: 1}, nil, "17 bits"},
		{"scale", Encoding{Kind: Quantized, Bits: 3, Scale: math.Inf(1)}, nil, "scale +Inf"},
		{"negative scale", Encoding{Kind: Quantized, Bits: 3, Scale: -1}, nil, "scale -1"},
		{"sparse with bits", Encoding{Kind: Sparse, Bits: 3}, nil, "must be 0"},
		{"kind", Encoding{Kind: 9}, nil, "unknown encoding kind 9"},
	} {
		_, err := AppendPayload(nil, tc.enc, tc.v)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if _, err := PayloadLen(tc.enc, tc.v); err == nil {
			t.Errorf("%s: PayloadLen accepted it", tc.name)
		}
	}
}

// TestMalformedPayloads: every way a payload can be wrong is an error
// wrapping ErrMalformed, and nothing is decoded.
func TestMalformedPayloads(t *testing.T) {
	sparse := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	one := []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f} // 1.0
	for _, tc := range []struct {
		name string
		p    []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"unknown kind", []byte{7, 1}, "unknown encoding kind 7"},
		{"dense kind", []byte{0, 1}, "unknown encoding kind 0"},
		{"no length", []byte{1}, "bad varint"},
		{"level at zero scale", sparse([]byte{2, 2, 1}, make([]byte, 8), []byte{3, 2}), "entry 0: level 1 at scale 0 is not exact"},
		{"level overflows", sparse([]byte{2, 1, 2}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f}, []byte{3, 0}), "entry 0: level 3 at scale"},
		{"length beyond max", []byte{1, 0x81, 0x80, 0x80, 0x01, 0}, "length 2097153 exceeds"},
		{"overlong varint", []byte{1, 0x82, 0x00, 0}, "varint of 2 bytes"},
		{"k beyond n", []byte{1, 2, 3}, "entry count 3 exceeds 2"},
		{"index beyond n", sparse([]byte{1, 2, 1, 2}, one), "index 2 beyond length 2"},
		{"indices beyond n", sparse([]byte{1, 3, 2, 1, 1}, one, one), "index 3 beyond length 3"},
		{"values truncated", sparse([]byte{1, 3, 1, 0}, one[:7]), "truncated"},
		{"zero value", sparse([]byte{1, 3, 1, 0}, make([]byte, 8)), "is +0"},
		{"trailing", sparse([]byte{1, 3, 1, 0}, one, []byte{0}), "1 bytes after the sparse payload"},
		{"bits 0", sparse([]byte{2, 1, 0}, one, []byte{0, 0}), "level width 0 bits"},
		{"bits 17", sparse([]byte{2, 1, 17}, one, []byte{0, 0, 0, 0}), "level width 17 bits"},
		{"nan scale", sparse([]byte{2, 1, 4}, []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}, []byte{0, 0}), "scale NaN"},
		{"negative scale", sparse([]byte{2, 1, 4}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0xbf}, []byte{0, 0}), "scale -1"},
		{"minus zero scale", sparse([]byte{2, 1, 4}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, []byte{0, 0}), "scale -0"},
		{"level padding", sparse([]byte{2, 1, 4}, one, []byte{0x10, 0}), "levels: non-zero padding bits"},
		{"sign padding", sparse([]byte{2, 1, 4}, one, []byte{0x01, 0x02}), "signs: non-zero padding bits"},
		{"levels truncated", sparse([]byte{2, 3, 4}, one, []byte{0}), "truncated"},
		{"quantized trailing", sparse([]byte{2, 1, 4}, one, []byte{1, 1, 0}), "1 bytes after the quantized payload"},
	} {
		got, _, err := DecodePayload([]float64{5}, tc.p, maxTestN)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q wrapping ErrMalformed", tc.name, err, tc.want)
		}
		if len(got) != 0 {
			t.Errorf("%s: decoded %v", tc.name, got)
		}
		if _, err := CheckPayload(tc.p, maxTestN); err == nil {
			t.Errorf("%s: CheckPayload accepted it", tc.name)
		}
	}
}

// TestQuantizedMinusZero: a -0 entry keeps its sign bit through the wire.
func TestQuantizedMinusZero(t *testing.T) {
	nz := math.Copysign(0, -1)
	for _, enc := range []Encoding{{Kind: Quantized, Bits: 3, Scale: 0.25}, {Kind: Quantized, Bits: 3}} {
		q := []float64{nz, 0, nz}
		if enc.Scale > 0 {
			q = append(q, -0.75, 1.75)
		}
		p, err := AppendPayload(nil, enc, q)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := DecodePayload(nil, p, maxTestN)
		if err != nil || !sameBits(got, q) {
			t.Errorf("%v: decoded %v (%v), want %v", enc, got, err, q)
		}
	}
}

// FuzzDecodePayload: no input panics; one that decodes encodes back to the
// same bytes (the payload form is canonical) and decodes again to the same
// bits.
func FuzzDecodePayload(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, op := range operators() {
		for _, n := range []int{1, 5, 16, 40} {
			x := testVector(rng, n)
			q := make([]float64, n)
			if enc := op.Compress(x, q, rng); enc.Compact() {
				p, _ := AppendPayload(nil, enc, q)
				f.Add(p)
			}
		}
	}
	f.Add([]byte{1, 3, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{2, 2, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 3, 2})
	f.Fuzz(func(t *testing.T, p []byte) {
		v, enc, err := DecodePayload(nil, p, 1<<16)
		n, cerr := CheckPayload(p, 1<<16)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("DecodePayload error %v, CheckPayload error %v", err, cerr)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if n != len(v) {
			t.Fatalf("CheckPayload length %d, decoded %d values", n, len(v))
		}
		again, err := AppendPayload(nil, enc, v)
		if err != nil {
			t.Fatalf("decoded %v %v does not encode: %v", enc, v, err)
		}
		if !bytes.Equal(again, p) {
			t.Fatalf("re-encoded %x, was %x", again, p)
		}
		if size, _ := PayloadLen(enc, v); size != len(p) {
			t.Fatalf("PayloadLen %d of a %d-byte payload", size, len(p))
		}
		w, enc2, err := DecodePayload(nil, again, 1<<16)
		if err != nil || enc2 != enc || !sameBits(w, v) {
			t.Fatalf("second decode %v %v (%v), first %v %v", enc2, w, err, enc, v)
		}
	})
}
