package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestStreamsDistinct checks that no two registered streams share a draw
// value, that the phases 0..MaxPhase-1 of the phased streams meet neither
// each other nor any registered stream, that the registry is sorted and
// named uniquely, and that the edge draws are the first EdgeDraws streams.
func TestStreamsDistinct(t *testing.T) {
	reg := Streams()
	if len(reg) == 0 {
		t.Fatal("empty registry")
	}
	names := map[string]Stream{}
	for k, r := range reg {
		if k > 0 && !(reg[k-1].Stream < r.Stream) {
			t.Errorf("registry not strictly ascending at %v (%#x) after %v (%#x)", r.Stream, uint64(r.Stream), reg[k-1].Stream, uint64(reg[k-1].Stream))
		}
		if r.Name == "" || strings.ContainsAny(r.Name, "/: ") {
			t.Errorf("stream %#x: bad name %q", uint64(r.Stream), r.Name)
		}
		if s, dup := names[r.Name]; dup {
			t.Errorf("name %q used by %#x and %#x", r.Name, uint64(s), uint64(r.Stream))
		}
		names[r.Name] = r.Stream
		if uint64(r.Stream)&namedBit != 0 {
			t.Errorf("stream %v has the NamedStream bit set", r.Name)
		}
		if got := r.Stream.String(); got != r.Name {
			t.Errorf("Stream(%#x).String() = %q, want %q", uint64(r.Stream), got, r.Name)
		}
	}
	// Every value a registered stream can take, with its owner.
	owner := map[Stream]string{}
	claim := func(s Stream, who string) {
		if prev, ok := owner[s]; ok {
			t.Fatalf("draw %#x claimed by %s and %s", uint64(s), prev, who)
		}
		owner[s] = who
	}
	for _, r := range reg {
		if !r.Phased {
			claim(r.Stream, r.Name)
		}
	}
	// Phase ph of a phased stream s is s + PhaseStride*ph, 0 <= ph <
	// MaxPhase: it meets a value v iff v - s is a multiple of PhaseStride
	// below PhaseStride*MaxPhase. Check every registered value and every
	// other phased stream's base (two phased streams meet iff one's base
	// is in the other's range or they share a residue and overlap).
	for _, r := range reg {
		if !r.Phased {
			continue
		}
		for _, o := range reg {
			if o.Stream == r.Stream {
				continue
			}
			if o.Phased && uint64(o.Stream)%PhaseStride == uint64(r.Stream)%PhaseStride {
				t.Errorf("phased streams %s and %s share the residue mod %d", r.Name, o.Name, PhaseStride)
			}
			if o.Stream > r.Stream && (o.Stream-r.Stream)%PhaseStride == 0 && (o.Stream-r.Stream)/PhaseStride < MaxPhase {
				t.Errorf("stream %s is phase %d of %s", o.Name, (o.Stream-r.Stream)/PhaseStride, r.Name)
			}
		}
		// Phase agrees with the formula, and a few phases, the last
		// included, meet no registered value.
		for _, ph := range []int{0, 1, 15, MaxPhase - 1} {
			s := r.Stream.Phase(ph)
			if s != r.Stream+PhaseStride*Stream(ph) {
				t.Errorf("%s.Phase(%d) = %#x", r.Name, ph, uint64(s))
			}
			claim(s, fmt.Sprintf("%s/ph%d", r.Name, ph))
		}
	}
	for ph := 1; ph < SlicingPhases; ph++ {
		claim(StreamSlicingLoss+Stream(ph), fmt.Sprintf("slicing-loss/ph%d", ph))
	}
	for d := 0; d < EdgeDraws; d++ {
		if owner[Stream(d)] == "" {
			t.Errorf("edge draw %d is not a registered stream", d)
		}
	}
	if int(StreamSample) != EdgeDraws {
		t.Errorf("StreamSample = %d, want it right after the %d edge draws", StreamSample, EdgeDraws)
	}
}

// TestStreamsDeriveDistinctSeeds checks that the hashes of the registered
// streams (phases 0..3 of the phased ones) and two named streams are
// pairwise distinct over a grid of (seed, round, a, b): a collision of
// 64-bit outputs on a few hundred thousand inputs would reveal a structural
// flaw of Hash, not chance.
func TestStreamsDeriveDistinctSeeds(t *testing.T) {
	var streams []Stream
	for _, r := range Streams() {
		if r.Phased {
			for ph := 0; ph < 4; ph++ {
				streams = append(streams, r.Stream.Phase(ph))
			}
			continue
		}
		streams = append(streams, r.Stream)
	}
	streams = append(streams, NamedStream("a"), NamedStream("b"))
	seen := make(map[uint64][5]uint64, 1<<18)
	for _, seed := range []uint64{0, 1, 2024} {
		for _, s := range streams {
			for round := uint64(0); round < 16; round++ {
				for a := uint64(0); a < 12; a++ {
					for b := uint64(0); b < 12; b++ {
						h := s.Hash(seed, round, a, b)
						in := [5]uint64{seed, round, uint64(s), a, b}
						if prev, ok := seen[h]; ok {
							t.Fatalf("Hash%v = Hash%v = %#x", in, prev, h)
						}
						seen[h] = in
					}
				}
			}
		}
	}
}

func TestStreamString(t *testing.T) {
	tests := []struct {
		s    Stream
		want string
	}{
		{StreamDual, "dual"},
		{StreamSample, "sample"},
		{StreamLoss.Phase(0), "loss"},
		{StreamLoss.Phase(3), "loss/ph3"},
		{StreamDelay.Phase(1), "delay/ph1"},
		{Stream(7), "stream(0x7)"},
		{NamedStream("x"), ""},
	}
	for _, tc := range tests {
		got := tc.s.String()
		if tc.want == "" {
			if !strings.HasPrefix(got, "named:0x") {
				t.Errorf("%#x: String() = %q, want a named: form", uint64(tc.s), got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%#x: String() = %q, want %q", uint64(tc.s), got, tc.want)
		}
	}
}

func TestStreamPhasePanics(t *testing.T) {
	for _, tc := range []struct {
		s  Stream
		ph int
	}{{StreamSample, 0}, {StreamLoss, -1}, {StreamDelay, MaxPhase}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%v.Phase(%d) did not panic", tc.s, tc.ph)
				}
			}()
			tc.s.Phase(tc.ph)
		}()
	}
}

func TestNamedStream(t *testing.T) {
	a, b := NamedStream("user/drop"), NamedStream("user/init")
	if a == b {
		t.Fatal("two names, one stream")
	}
	if a != NamedStream("user/drop") {
		t.Fatal("NamedStream is not a function of its name")
	}
	for _, s := range []Stream{a, b} {
		if uint64(s)&namedBit == 0 {
			t.Errorf("%v: top bit clear", s)
		}
		if slices.ContainsFunc(Streams(), func(r StreamInfo) bool { return r.Stream == s }) {
			t.Errorf("%v is registered", s)
		}
	}
}

// TestStreamSeed checks that Stream.Seed, Stream.Rand and SeedSample follow
// the one rule PCG(Hash(seed, round, s, key, 0), Hash(seed, round, s, key, 1)).
func TestStreamSeed(t *testing.T) {
	for _, s := range []Stream{StreamSample, StreamInit, StreamProblem} {
		want := rand.New(rand.NewPCG(Hash(9, 4, uint64(s), 2, 0), Hash(9, 4, uint64(s), 2, 1)))
		pcg := rand.NewPCG(1, 1)
		s.Seed(pcg, 9, 4, 2)
		got, got2 := rand.New(pcg), s.Rand(9, 4, 2)
		for k := 0; k < 8; k++ {
			w := want.Uint64()
			if g, g2 := got.Uint64(), got2.Uint64(); g != w || g2 != w {
				t.Fatalf("%v: draw %d: Seed %#x, Rand %#x, want %#x", s, k, g, g2, w)
			}
		}
		if s.Uniform(9, 4, 2, 1) != Uniform(9, 4, uint64(s), 2, 1) {
			t.Errorf("%v: Stream.Uniform differs from Uniform", s)
		}
	}
	pcg := rand.NewPCG(0, 0)
	SeedSample(pcg, 9, 4, 2)
	want := StreamSample.Rand(9, 4, 2)
	if got, w := rand.New(pcg).Uint64(), want.Uint64(); got != w {
		t.Fatalf("SeedSample: %#x, want %#x", got, w)
	}
}
