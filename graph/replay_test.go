package graph

import (
	"bytes"
	"strings"
	"testing"
)

// TestRecordReplay checks that replaying a recording gives Active
// identical to the recorded process for every (t, d, i, j), both pair
// orders, for a faulty bursty process on a graph whose edge count is not a
// multiple of 8.
func TestRecordReplay(t *testing.T) {
	const rounds, draws = 300, 3
	g := testGraph(t) // 6 edges
	ge := newGE(t, g, 9, 0.1, 0.2, 0.1)
	proc, err := NewFaulty(g, ge, []Cut{{Edges: [][2]int{{2, 4}}, From: 10, To: 50}},
		[]Partition{{Groups: [][]int{{0, 1}}, From: 100, To: 120}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Record(&buf, g, proc, rounds, draws); err != nil {
		t.Fatal(err)
	}
	header := "consim-edges 1\nn 5 edges 6 rounds 300 draws 3\n0 1\n0 2\n1 2\n1 3\n2 4\n3 4\nbits\n"
	if got := buf.String(); !strings.HasPrefix(got, header) || len(got) != len(header)+rounds*draws*1 {
		t.Fatalf("recording has %d bytes and header %q; want header %q and %d bytes of bits", len(got), got[:min(len(got), len(header))], header, rounds*draws)
	}
	rep, err := ReadReplay(bytes.NewReader(buf.Bytes()), g)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rounds() != rounds || rep.Draws() != draws {
		t.Fatalf("replay holds %d rounds x %d draws, want %d x %d", rep.Rounds(), rep.Draws(), rounds, draws)
	}
	present := 0
	for r := 0; r < rounds; r++ {
		for d := 0; d < draws; d++ {
			for i := 0; i < g.N; i++ {
				for j := 0; j < g.N; j++ {
					want := i != j && proc.Active(r, d, i, j)
					if got := rep.Active(r, d, i, j); got != want {
						t.Fatalf("round %d draw %d pair (%d,%d): replay %v, recorded process %v", r, d, i, j, got, want)
					}
					if want {
						present++
					}
				}
			}
		}
	}
	if present == 0 || present == rounds*draws*2*len(g.Edges) {
		t.Fatalf("%d present pairs: the recording is trivial", present)
	}
	if _, err := rep.Lookup(rounds, 0, 0, 1); err == nil || !strings.Contains(err.Error(), "round 300 is beyond the recording, which holds rounds [0, 300)") {
		t.Errorf("Lookup beyond the recording: %v", err)
	}
	if _, err := rep.Lookup(0, 3, 0, 1); err == nil || !strings.Contains(err.Error(), "draw 3 is beyond") {
		t.Errorf("Lookup of draw 3: %v", err)
	}
	if _, err := rep.Lookup(0, 0, 0, 4); err == nil || !strings.Contains(err.Error(), "{0,4} is not an edge") {
		t.Errorf("Lookup of a non-edge: %v", err)
	}
	if rep.Active(rounds, 0, 0, 1) {
		t.Error("Active beyond the recording is true")
	}
}

func TestReadReplayRejects(t *testing.T) {
	g := testGraph(t)
	var buf bytes.Buffer
	if err := Record(&buf, g, Bernoulli{G: g, Seed: 1}, 20, 3); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	other, err := New(5, []Edge{{0, 1, 1}, {0, 2, 1}, {1, 2, 1}, {1, 3, 1}, {2, 3, 1}, {3, 4, 1}})
	if err != nil {
		t.Fatal(err)
	}
	small, err := Ring(4)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		g    *Graph
		want string
	}{
		{"other edges", good, other, "edge 4 is {2,4} in the recording but {2,3} in the graph"},
		{"other size", good, small, "recorded on a graph with 5 agents and 6 edges, replayed on one with 4 agents and 4 edges"},
		{"truncated", good[:len(good)-5], g, "truncated: 55 bytes of bitsets, want 60"},
		{"trailing data", good + "x", g, "unexpected data after 20 rounds x 3 draws"},
		{"not a recording", "hello\n", g, "not a consim edge recording"},
		{"empty", "", g, "header: unexpected EOF"},
		{"bad sizes", "consim-edges 1\nn 5 edges six\n", g, "line 2"},
	}
	for _, tt := range tests {
		_, err := ReadReplay(strings.NewReader(tt.data), tt.g)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
