package node

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/compress"
)

func mustFrame(t testing.TB, kind FrameKind, from, round, phase int, data []float64) []byte {
	t.Helper()
	f, err := AppendFrame(nil, kind, from, round, phase, data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// mustFrameTo is mustFrame for the destinations to.
func mustFrameTo(t testing.TB, kind FrameKind, from int, to []int, round, phase int, data []float64) []byte {
	t.Helper()
	f, err := AppendFrameTo(nil, kind, from, to, round, phase, data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFrameRoundTrip(t *testing.T) {
	tests := []struct {
		name               string
		kind               FrameKind
		from, round, phase int
		data               []float64
	}{
		{"data", FrameData, 3, 17, 2, []float64{1.5, -2, 0}},
		{"empty data", FrameData, 0, 0, 0, nil},
		{"reduce extremes", FrameReduce, MaxFrameID, MaxFrameRound, MaxFramePhase,
			[]float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64}},
		{"nan payload", FrameReduce, 1, 2, 3, []float64{math.Float64frombits(0x7ff8dead0000beef)}},
		{"leave", FrameLeave, 5, 9, 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFrame(t, tc.kind, tc.from, tc.round, tc.phase, tc.data)
			if len(f) != HeaderLen+8*len(tc.data) {
				t.Fatalf("frame length %d, want %d", len(f), HeaderLen+8*len(tc.data))
			}
			h, got, err := DecodeFrame(nil, f)
			if err != nil {
				t.Fatal(err)
			}
			want := Header{Kind: tc.kind, From: tc.from, Round: tc.round, Phase: tc.phase, Count: len(tc.data)}
			if h != want {
				t.Fatalf("header %+v, want %+v", h, want)
			}
			if len(got) != len(tc.data) {
				t.Fatalf("%d values, want %d", len(got), len(tc.data))
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(tc.data[i]) {
					t.Errorf("value %d: bits %#x, want %#x", i, math.Float64bits(got[i]), math.Float64bits(tc.data[i]))
				}
			}
		})
	}
}

func TestFrameLayout(t *testing.T) {
	f := mustFrameTo(t, FrameData, 0x01020304, []int{5, 0x0708}, 0x0a0b0c0d, 0x0e0f, []float64{1})
	want := []byte{FrameVersion, 1, 4, 3, 2, 1, 0x0d, 0x0c, 0x0b, 0x0a, 0x0f, 0x0e, 1, 0, 0, 0, 2, 0, 5, 0, 0, 0, 8, 7, 0, 0}
	want = binary.LittleEndian.AppendUint64(want, math.Float64bits(1))
	h, err := DecodeHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	if h.NTo != 2 || FrameTo(f, h, 0) != 5 || FrameTo(f, h, 1) != 0x0708 {
		t.Fatalf("destinations of %+v: %d, %d", h, FrameTo(f, h, 0), FrameTo(f, h, 1))
	}
	if string(f) != string(want) {
		t.Fatalf("frame % x\nwant  % x", f, want)
	}
}

func TestAppendFrameRejectsBadFields(t *testing.T) {
	tests := []struct {
		name               string
		kind               FrameKind
		from, round, phase int
		data               []float64
	}{
		{"unknown kind", 9, 0, 0, 0, nil},
		{"leave with values", FrameLeave, 0, 0, 0, []float64{1}},
		{"negative id", FrameData, -1, 0, 0, nil},
		{"id too large", FrameData, MaxFrameID + 1, 0, 0, nil},
		{"negative round", FrameData, 0, -1, 0, nil},
		{"round too large", FrameData, 0, MaxFrameRound + 1, 0, nil},
		{"phase too large", FrameData, 0, 0, MaxFramePhase + 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := []byte("kept")
			got, err := AppendFrame(dst, tc.kind, tc.from, tc.round, tc.phase, tc.data)
			if err == nil {
				t.Fatal("want an error")
			}
			if string(got) != "kept" {
				t.Fatalf("dst changed to %q on error", got)
			}
		})
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	good := mustFrame(t, FrameData, 1, 2, 3, []float64{4, 5})
	withKind := func(k byte) []byte { f := append([]byte(nil), good...); f[1] = k; return f }
	withVersion := func(v byte) []byte { f := append([]byte(nil), good...); f[0] = v; return f }
	withCount := func(c uint32) []byte {
		f := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(f[12:], c)
		return f
	}
	withNTo := func(n uint16) []byte {
		f := append([]byte(nil), good...)
		binary.LittleEndian.PutUint16(f[16:], n)
		return f
	}
	leave := mustFrame(t, FrameLeave, 1, 2, 3, nil)
	binary.LittleEndian.PutUint32(leave[12:], 1)
	leave = append(leave, make([]byte, 8)...)
	evalTo, err := AppendEvalResults(nil, 1, 2, 3, 4, 5, 6, [][]float64{{7}})
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(evalTo[16:], 1)
	evalTo = append(evalTo[:HeaderLen:HeaderLen], append([]byte{1, 0, 0, 0}, evalTo[HeaderLen:]...)...)
	tests := []struct {
		name  string
		frame []byte
	}{
		{"empty", nil},
		{"short header", good[:HeaderLen-1]},
		{"version zero", withVersion(0)},
		{"version two", withVersion(2)},
		{"destinations beyond the frame", withNTo(1000)},
		{"destinations without room", withNTo(1)},
		{"eval frame with destinations", evalTo},
		{"kind zero", withKind(0)},
		{"kind unknown", withKind(9)},
		{"dense values as a compact payload", withKind(byte(FrameCompact))},
		{"truncated values", good[:len(good)-1]},
		{"trailing bytes", append(append([]byte(nil), good...), 0)},
		{"count too small", withCount(1)},
		{"count too large", withCount(3)},
		{"count huge", withCount(math.MaxUint32)},
		{"leave with values", leave},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := DecodeFrame(nil, tc.frame); !errors.Is(err, ErrMalformedFrame) {
				t.Fatalf("error %v, want ErrMalformedFrame", err)
			}
		})
	}
}

func TestFrameCodecDoesNotAllocate(t *testing.T) {
	data := make([]float64, 100)
	for i := range data {
		data[i] = float64(i) / 7
	}
	buf := mustFrame(t, FrameData, 1, 2, 3, data)
	vals := make([]float64, 0, len(data))
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = AppendFrame(buf[:0], FrameData, 1, 2, 3, data); err != nil {
			t.Fatal(err)
		}
		if _, vals, err = DecodeFrame(vals, buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per encode and decode, want 0", allocs)
	}
}

// FuzzDecodeFrame checks that no input makes the decoder panic and that
// every frame it accepts encodes back to the same bytes.
func FuzzDecodeFrame(f *testing.F) {
	f.Add(mustFrame(f, FrameData, 1, 2, 3, []float64{4, 5}))
	f.Add(mustFrame(f, FrameReduce, 0, 0, 0, []float64{math.NaN()}))
	f.Add(mustFrame(f, FrameLeave, 7, 8, 9, nil))
	f.Add([]byte{})
	f.Add(mustFrameTo(f, FrameSum, 1, []int{0, 2}, 3, 4, []float64{5}))
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0})
	f.Add([]byte{1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0})
	// Compact data frames (wire_compact.go).
	for _, c := range compactCases() {
		if frame, err := AppendDataTo(nil, 1, []int{0, 2}, 3, 4, c.enc, c.data); err == nil {
			f.Add(frame)
		}
	}
	// The eval kinds: their bodies are raw words at this level.
	if chunk, err := AppendEvalChunk(nil, 1, 2, 3, 4, 5, []consensus.EvalRequest{{Op: 1, Key: 2, Arg: []float64{3}}}); err == nil {
		f.Add(chunk)
	}
	if res, err := AppendEvalResults(nil, 1, 2, 3, 4, 5, 6, [][]float64{{7, 8}}); err == nil {
		f.Add(res)
	}
	if fail, err := AppendEvalFail(nil, 1, 2, 3, 4, 5, 6, "no"); err == nil {
		f.Add(fail)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, vals, err := DecodeFrame(nil, frame)
		if err != nil {
			if !errors.Is(err, ErrMalformedFrame) {
				t.Fatalf("error %v does not wrap ErrMalformedFrame", err)
			}
			return
		}
		to := make([]int, h.NTo)
		for k := range to {
			to[k] = FrameTo(frame, h, k)
		}
		again, err := AppendFrameTo(nil, h.Kind, h.From, to, h.Round, h.Phase, vals)
		if h.Kind == FrameCompact {
			_, enc, derr := compress.DecodePayload(nil, frame[h.body():], maxFrameCount)
			if derr != nil {
				t.Fatalf("compact frame passed DecodeHeader, its payload does not decode: %v", derr)
			}
			again, err = AppendDataTo(nil, h.From, to, h.Round, h.Phase, enc, vals)
		}
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", h, err)
		}
		if string(again) != string(frame) {
			t.Fatalf("round trip changed the frame:\n% x\n% x", frame, again)
		}
	})
}

func TestParseAgentSubject(t *testing.T) {
	const p = len("consim.r.a.")
	for _, tc := range []struct {
		subject  string
		from, to int
		ok       bool
	}{
		{"consim.r.a.0", 0, toHeader, true},
		{"consim.r.a.17", 17, toHeader, true},
		{"consim.r.a.17.3", 17, 3, true},
		{"consim.r.a.17.all", 17, toAll, true},
		{"consim.r.a.017", 0, 0, false},
		{"consim.r.a.17.03", 0, 0, false},
		{"consim.r.a.17.", 0, 0, false},
		{"consim.r.a.17.3.4", 0, 0, false},
		{"consim.r.a.17.All", 0, 0, false},
		{"consim.r.a.", 0, 0, false},
		{"consim.r.a.1x", 0, 0, false},
		{"consim.r.a.99999999999999999999", 0, 0, false},
	} {
		from, to, ok := parseAgentSubject(tc.subject, p)
		if ok != tc.ok || ok && (from != tc.from || to != tc.to) {
			t.Errorf("parseAgentSubject(%q) = %d, %d, %v, want %d, %d, %v", tc.subject, from, to, ok, tc.from, tc.to, tc.ok)
		}
	}
}

// TestNamedSubjectsBounded: drops on more than maxNamedSubjects subjects
// are counted under otherSubjects, so a flood on random subjects cannot
// grow the per-subject counts without bound.
func TestNamedSubjectsBounded(t *testing.T) {
	b := &busConn{}
	for k := range maxNamedSubjects {
		s := "consim.r.a." + strconv.Itoa(k) + ".x"
		if got := b.named(s); got != s {
			t.Fatalf("subject %d named %q, want itself", k, got)
		}
	}
	if got := b.named("consim.r.a.new"); got != otherSubjects {
		t.Errorf("subject past the bound named %q, want %q", got, otherSubjects)
	}
	if got := b.named("consim.r.a.0.x"); got != "consim.r.a.0.x" {
		t.Errorf("a subject named before is now %q", got)
	}
}
