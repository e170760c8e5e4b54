package node

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consim/consim/consensus/compress"
)

// compactCase is a message's values with their encoding.
type compactCase struct {
	name string
	enc  compress.Encoding
	data []float64
}

// compactCases returns messages of every compact encoding, computed by
// the operators from irregular vectors (with -0 and exact zeros).
func compactCases() []compactCase {
	rng := rand.New(rand.NewPCG(3, 14))
	var cases []compactCase
	for _, tc := range []struct {
		name string
		op   compress.Operator
		n    int
	}{
		{"top 10% of 123", &compress.TopK{Fraction: 0.1}, 123},
		{"top 1 of 3", &compress.TopK{Fraction: 0.1}, 3},
		{"rand 30% of 300", &compress.RandK{Fraction: 0.3}, 300},
		{"qsgd 4 bits of 123", compress.QSGD{Bits: 4}, 123},
		{"qsgd 1 bit of 9", compress.QSGD{Bits: 1}, 9},
		{"qsgd 16 bits of 1000", compress.QSGD{Bits: 16}, 1000},
	} {
		x := make([]float64, tc.n)
		for l := range x {
			x[l] = rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-20))
		}
		x[tc.n/2] = math.Copysign(0, -1)
		q := make([]float64, tc.n)
		enc := tc.op.Compress(x, q, rng)
		cases = append(cases, compactCase{tc.name, enc, q})
	}
	cases = append(cases, compactCase{"all-zero sparse", compress.Encoding{Kind: compress.Sparse}, make([]float64, 50)})
	return cases
}

// TestCompactFrameRoundTrip: a compact data frame is its header, the
// destination list and the payload, and decodes to the header and the
// sender's values bit for bit; a dense encoding gives the FrameData frame
// of AppendFrameTo.
func TestCompactFrameRoundTrip(t *testing.T) {
	to := []int{4, 0, 9}
	for _, c := range compactCases() {
		t.Run(c.name, func(t *testing.T) {
			f, err := AppendDataTo([]byte("kept"), 7, to, 11, 2, c.enc, c.data)
			if err != nil {
				t.Fatal(err)
			}
			if string(f[:4]) != "kept" {
				t.Fatalf("prefix overwritten: %q", f[:4])
			}
			f = f[4:]
			size, _ := compress.PayloadLen(c.enc, c.data)
			if n, _ := dataFrameLen(len(to), c.enc, c.data); len(f) != n || n != HeaderLen+4*len(to)+size {
				t.Fatalf("frame of %d bytes, dataFrameLen %d, header+list+payload %d", len(f), n, HeaderLen+4*len(to)+size)
			}
			h, got, err := DecodeFrame([]float64{1, 2}, f)
			if err != nil {
				t.Fatal(err)
			}
			want := Header{Kind: FrameCompact, From: 7, Round: 11, Phase: 2, Count: size, NTo: len(to)}
			if h != want {
				t.Fatalf("header %+v, want %+v", h, want)
			}
			for k, j := range to {
				if FrameTo(f, h, k) != j {
					t.Fatalf("destination %d = %d, want %d", k, FrameTo(f, h, k), j)
				}
			}
			if len(got) != len(c.data) {
				t.Fatalf("%d values, want %d", len(got), len(c.data))
			}
			for l := range got {
				if math.Float64bits(got[l]) != math.Float64bits(c.data[l]) {
					t.Fatalf("value %d: bits %#x, sent %#x", l, math.Float64bits(got[l]), math.Float64bits(c.data[l]))
				}
			}
		})
	}
	dense := []float64{1, math.Copysign(0, -1), 3}
	a, err := AppendDataTo(nil, 1, to, 2, 3, compress.Encoding{}, dense)
	if err != nil {
		t.Fatal(err)
	}
	if b := mustFrameTo(t, FrameData, 1, to, 2, 3, dense); string(a) != string(b) {
		t.Fatalf("dense AppendDataTo % x, AppendFrameTo % x", a, b)
	}
}

// TestCompactFrameRejects: a message that does not fit its encoding, or a
// frame field out of range, is an encoding error that appends nothing.
func TestCompactFrameRejects(t *testing.T) {
	q := compress.Encoding{Kind: compress.Quantized, Bits: 2, Scale: 0.5}
	for _, tc := range []struct {
		name string
		from int
		to   []int
		enc  compress.Encoding
		data []float64
		want string
	}{
		{"not levels", 0, nil, q, []float64{0.5, 0.7}, "value 1 = 0.7 is not a level"},
		{"level too high", 0, nil, q, []float64{2}, "value 0 = 2"},
		{"negative sender", -1, nil, q, []float64{0.5}, "agent id -1"},
		{"bad destination", 0, []int{-3}, compress.Encoding{Kind: compress.Sparse}, []float64{1}, "destination -3"},
	} {
		got, err := AppendDataTo([]byte("kept"), tc.from, tc.to, 0, 0, tc.enc, tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if string(got) != "kept" {
			t.Errorf("%s: dst changed to %q", tc.name, got)
		}
	}
	if _, err := AppendFrameTo(nil, FrameCompact, 0, nil, 0, 0, []float64{1}); err == nil {
		t.Error("AppendFrameTo wrote a compact frame of raw values")
	}
}

// TestMalformedCompactFrames: a compact frame whose length does not match
// its count, or whose payload is malformed, fails DecodeHeader with
// ErrMalformedFrame, like any malformed frame.
func TestMalformedCompactFrames(t *testing.T) {
	good, err := AppendDataTo(nil, 1, []int{0}, 2, 0, compress.Encoding{Kind: compress.Sparse}, []float64{0, 2, 0, 3})
	if err != nil {
		t.Fatal(err)
	}
	body := HeaderLen + 4
	with := func(edit func(f []byte) []byte) []byte { return edit(append([]byte(nil), good...)) }
	for _, tc := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"truncated", good[:len(good)-1], "declares 21 payload bytes"},
		{"trailing byte", with(func(f []byte) []byte { return append(f, 0) }), "declares 21 payload bytes"},
		{"count too large", with(func(f []byte) []byte { binary.LittleEndian.PutUint32(f[12:], 22); return f }), "declares 22 payload bytes"},
		{"unknown payload kind", with(func(f []byte) []byte { f[body] = 5; return f }), "unknown encoding kind 5"},
		{"index beyond length", with(func(f []byte) []byte { f[body+1] = 2; return f }), "beyond length 2"},
		{"zero value", with(func(f []byte) []byte { clear(f[body+5 : body+13]); return f }), "is +0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeFrame(nil, tc.frame)
			if !errors.Is(err, ErrMalformedFrame) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q wrapping ErrMalformedFrame", err, tc.want)
			}
			if tc.name != "truncated" && tc.name != "trailing byte" && tc.name != "count too large" && !errors.Is(err, compress.ErrMalformed) {
				t.Errorf("error %v does not wrap compress.ErrMalformed", err)
			}
		})
	}
}
