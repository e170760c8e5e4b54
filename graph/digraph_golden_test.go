package graph

import (
	"slices"
	"testing"
)

// TestGoldenDigraphs pins the arcs that the directed topologies, the
// sequence split and the arc process draw, recorded once from the code as
// it stood when they were added: a change to any of them changes the
// graph of every directed run, so it must be deliberate, never a test
// update.
func TestGoldenDigraphs(t *testing.T) {
	random, err := RandomDigraph(6, 0.3, 42)
	if err != nil {
		t.Fatal(err)
	}
	kout, err := KOut(6, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := SplitSequence(random, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  *Digraph
		want [][2]int
	}{
		{"RandomDigraph(6, 0.3, 42)", random, [][2]int{{0, 2}, {0, 5}, {1, 0}, {1, 4}, {2, 0}, {2, 3}, {2, 4}, {3, 1}, {3, 4}, {4, 5}, {5, 0}, {5, 2}, {5, 3}}},
		{"KOut(6, 2, 7)", kout, [][2]int{{0, 2}, {0, 4}, {1, 2}, {1, 3}, {2, 0}, {2, 5}, {3, 1}, {3, 2}, {4, 0}, {4, 2}, {5, 3}, {5, 4}}},
		{"SplitSequence phase 0", seq.At(0), [][2]int{{0, 5}, {2, 4}, {3, 4}}},
		{"SplitSequence phase 1", seq.At(1), [][2]int{{2, 0}, {3, 1}, {5, 3}}},
		{"SplitSequence phase 2", seq.At(2), [][2]int{{0, 2}, {1, 0}, {1, 4}, {2, 3}, {4, 5}, {5, 0}, {5, 2}}},
	} {
		if got := arcPairs(tc.got); !slices.Equal(got, tc.want) {
			t.Errorf("%s: arcs %v, want %v", tc.name, got, tc.want)
		}
	}
	ring, _ := DirectedRing(4)
	ring, _ = ring.WithUniformP(0.5)
	arcs := ArcBernoulli{D: ring, Seed: 3}
	for r, want := range [][][2]int{{{1, 2}, {2, 3}, {3, 0}}, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, {{0, 1}, {2, 3}, {3, 0}}} {
		var up [][2]int
		for _, a := range ring.Arcs {
			if arcs.ArcUp(r, 0, a.From, a.To) {
				up = append(up, [2]int{a.From, a.To})
			}
		}
		if !slices.Equal(up, want) {
			t.Errorf("ArcBernoulli(p=0.5, seed 3) round %d: arcs up %v, want %v", r, up, want)
		}
	}
}
