package node

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
)

func sameFloatBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func TestEvalChunkRoundTrip(t *testing.T) {
	reqs := []consensus.EvalRequest{
		{Op: 0, Key: 1, Arg: []float64{1.5, -2}},
		{Op: -7, Key: math.MaxUint64, Arg: nil},
		{Op: math.MaxInt64, Key: 0, Arg: []float64{math.Float64frombits(0x7ff8dead0000beef), math.Inf(-1), math.Copysign(0, -1)}},
	}
	f, err := AppendEvalChunk([]byte("x"), 4, 17, 2, 99, 1000, reqs)
	if err != nil {
		t.Fatal(err)
	}
	f = f[1:]
	if len(f) != HeaderLen+8*(3+3*3+5) {
		t.Fatalf("frame of %d bytes", len(f))
	}
	var c EvalChunk
	if err := DecodeEvalChunk(&c, f); err != nil {
		t.Fatal(err)
	}
	want := Header{Kind: FrameEval, From: 4, Round: 17, Phase: 2, Count: 17}
	if c.Header != want || c.Seq != 99 || c.Start != 1000 || len(c.Reqs) != len(reqs) {
		t.Fatalf("decoded %+v seq %d start %d with %d requests", c.Header, c.Seq, c.Start, len(c.Reqs))
	}
	for k, q := range c.Reqs {
		if q.Op != reqs[k].Op || q.Key != reqs[k].Key || !sameFloatBits(q.Arg, reqs[k].Arg) {
			t.Errorf("request %d: %+v, want %+v", k, q, reqs[k])
		}
	}
	// Appending to one request's argument must not overwrite the next.
	if cap(c.Reqs[0].Arg) != len(c.Reqs[0].Arg) {
		t.Errorf("argument 0 has spare capacity %d", cap(c.Reqs[0].Arg)-len(c.Reqs[0].Arg))
	}
}

func TestEvalReplyRoundTrip(t *testing.T) {
	vals := [][]float64{{1, 2, 3}, {}, {math.NaN()}}
	f, err := AppendEvalResults(nil, 3, 5, 1, 7, 2, 40, vals)
	if err != nil {
		t.Fatal(err)
	}
	var e EvalReply
	if err := DecodeEvalReply(&e, f); err != nil {
		t.Fatal(err)
	}
	if e.Kind != FrameEvalResult || e.From != 3 || e.Round != 5 || e.Phase != 1 || e.Seq != 7 || e.Worker != 2 || e.Start != 40 || e.Err != "" {
		t.Fatalf("decoded %+v", e)
	}
	if len(e.Values) != len(vals) {
		t.Fatalf("%d results, want %d", len(e.Values), len(vals))
	}
	for k := range vals {
		if !sameFloatBits(e.Values[k], vals[k]) {
			t.Errorf("result %d: %v, want %v", k, e.Values[k], vals[k])
		}
	}
	for _, msg := range []string{"", "x", "exactly8", "a longer message: ops refused", strings.Repeat("y", 5000)} {
		f, err := AppendEvalFail(nil, 3, 5, 1, 7, 2, 41, msg)
		if err != nil {
			t.Fatal(err)
		}
		if err := DecodeEvalReply(&e, f); err != nil {
			t.Fatal(err)
		}
		want := msg[:min(len(msg), maxEvalMessage)]
		if e.Kind != FrameEvalFail || e.Start != 41 || e.Worker != 2 || e.Err != want || e.Values != nil {
			t.Fatalf("decoded failure %+v, want message of %d bytes", e, len(want))
		}
	}
}

func TestEvalEncodeRejects(t *testing.T) {
	one := []consensus.EvalRequest{{}}
	tests := []struct {
		name string
		enc  func() ([]byte, error)
	}{
		{"no requests", func() ([]byte, error) { return AppendEvalChunk(nil, 0, 0, 0, 0, 0, nil) }},
		{"negative start", func() ([]byte, error) { return AppendEvalChunk(nil, 0, 0, 0, 0, -1, one) }},
		{"negative agent", func() ([]byte, error) { return AppendEvalChunk(nil, -1, 0, 0, 0, 0, one) }},
		{"phase too large", func() ([]byte, error) { return AppendEvalChunk(nil, 0, 0, MaxFramePhase+1, 0, 0, one) }},
		{"no results", func() ([]byte, error) { return AppendEvalResults(nil, 0, 0, 0, 0, 0, 0, nil) }},
		{"negative worker", func() ([]byte, error) { return AppendEvalResults(nil, 0, 0, 0, 0, -1, 0, [][]float64{{1}}) }},
		{"failure index", func() ([]byte, error) { return AppendEvalFail(nil, 0, 0, 0, 0, 0, -1, "") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.enc(); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func TestEvalDecodeRejects(t *testing.T) {
	chunk, _ := AppendEvalChunk(nil, 1, 2, 3, 4, 5, []consensus.EvalRequest{{Op: 1, Arg: []float64{1, 2}}})
	results, _ := AppendEvalResults(nil, 1, 2, 3, 4, 0, 5, [][]float64{{1}})
	fail, _ := AppendEvalFail(nil, 1, 2, 3, 4, 0, 5, "no")
	// word w of the body of f set to v
	set := func(f []byte, w int, v uint64) []byte {
		g := slices.Clone(f)
		binary.LittleEndian.PutUint64(g[HeaderLen+8*w:], v)
		return g
	}
	chunkTests := []struct {
		name  string
		frame []byte
	}{
		{"results frame", results},
		{"zero requests", set(chunk, 2, 0)},
		{"more requests", set(chunk, 2, 2)},
		{"argument too long", set(chunk, 5, 3)},
		{"argument too short", set(chunk, 5, 1)},
		{"start too large", set(chunk, 1, 1<<40)},
		{"truncated", chunk[:len(chunk)-8]},
	}
	for _, tc := range chunkTests {
		t.Run("chunk/"+tc.name, func(t *testing.T) {
			var c EvalChunk
			if err := DecodeEvalChunk(&c, tc.frame); !errors.Is(err, ErrMalformedFrame) {
				t.Fatalf("error %v, want ErrMalformedFrame", err)
			}
		})
	}
	replyTests := []struct {
		name  string
		frame []byte
	}{
		{"request frame", chunk},
		{"zero results", set(results, 3, 0)},
		{"result too long", set(results, 4, 2)},
		{"worker too large", set(results, 1, 1<<33)},
		{"message length", set(fail, 3, 9)},
		{"message too long", set(fail, 3, maxEvalMessage+1)},
		{"padding not zero", set(fail, 4, binary.LittleEndian.Uint64([]byte("no\x00\x00\x00\x00\x00x")))},
	}
	for _, tc := range replyTests {
		t.Run("reply/"+tc.name, func(t *testing.T) {
			var e EvalReply
			if err := DecodeEvalReply(&e, tc.frame); !errors.Is(err, ErrMalformedFrame) {
				t.Fatalf("error %v, want ErrMalformedFrame", err)
			}
		})
	}
}

// FuzzDecodeEval checks that no input makes the eval decoders panic and
// that every frame they accept encodes back to the same bytes.
func FuzzDecodeEval(f *testing.F) {
	chunk, _ := AppendEvalChunk(nil, 1, 2, 3, 4, 5, []consensus.EvalRequest{{Op: -1, Key: 9, Arg: []float64{1, math.NaN()}}, {Op: 2}})
	results, _ := AppendEvalResults(nil, 1, 2, 3, 4, 6, 5, [][]float64{{1}, {}, {2, 3}})
	fail, _ := AppendEvalFail(nil, 1, 2, 3, 4, 6, 5, "refused")
	f.Add(chunk)
	f.Add(results)
	f.Add(fail)
	f.Add(chunk[:HeaderLen])
	f.Fuzz(func(t *testing.T, frame []byte) {
		var c EvalChunk
		if err := DecodeEvalChunk(&c, frame); err == nil {
			again, err := AppendEvalChunk(nil, c.From, c.Round, c.Phase, c.Seq, c.Start, c.Reqs)
			if err != nil || string(again) != string(frame) {
				t.Fatalf("chunk round trip: %v\n% x\n% x", err, frame, again)
			}
		} else if !errors.Is(err, ErrMalformedFrame) {
			t.Fatalf("error %v does not wrap ErrMalformedFrame", err)
		}
		var e EvalReply
		err := DecodeEvalReply(&e, frame)
		if err != nil {
			if !errors.Is(err, ErrMalformedFrame) {
				t.Fatalf("error %v does not wrap ErrMalformedFrame", err)
			}
			return
		}
		var again []byte
		if e.Kind == FrameEvalFail {
			again, err = AppendEvalFail(nil, e.From, e.Round, e.Phase, e.Seq, e.Worker, e.Start, e.Err)
		} else {
			again, err = AppendEvalResults(nil, e.From, e.Round, e.Phase, e.Seq, e.Worker, e.Start, e.Values)
		}
		if err != nil || string(again) != string(frame) {
			t.Fatalf("reply round trip: %v\n% x\n% x", err, frame, again)
		}
	})
}
