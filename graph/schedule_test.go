package graph

import (
	"strings"
	"testing"
)

// always is the edge process with every edge present.
type always struct{}

func (always) Active(t, d, i, j int) bool { return true }

func TestFaultyExact(t *testing.T) {
	g := geRing(t, 6, 1) // edges {0,1} {0,5} {1,2} {2,3} {3,4} {4,5}
	f, err := NewFaulty(g, always{},
		[]Cut{
			{Edges: [][2]int{{1, 0}, {3, 4}}, From: 10, To: 20},
			{Edges: [][2]int{{2, 3}}, From: 15, To: Forever},
		},
		[]Partition{
			{Groups: [][]int{{0, 1, 2}, {3, 4, 5}}, From: 30, To: 40},
			{Groups: [][]int{{4}}, From: 50, To: 60}, // 4 against everyone else
		})
	if err != nil {
		t.Fatal(err)
	}
	down := func(r, i, j int) bool {
		if i > j {
			i, j = j, i
		}
		switch {
		case r >= 10 && r < 20 && (i == 0 && j == 1 || i == 3 && j == 4):
			return true
		case r >= 15 && i == 2 && j == 3:
			return true
		case r >= 30 && r < 40 && (i < 3) != (j < 3):
			return true
		case r >= 50 && r < 60 && (i == 4) != (j == 4):
			return true
		}
		return false
	}
	for r := 0; r < 100; r++ {
		for _, e := range g.Edges {
			for _, pair := range [][2]int{{e.I, e.J}, {e.J, e.I}} {
				want := !down(r, pair[0], pair[1])
				for d := 0; d < 3; d++ {
					if got := f.Active(r, d, pair[0], pair[1]); got != want {
						t.Fatalf("round %d draw %d pair %v: active %v, want %v", r, d, pair, got, want)
					}
				}
				if f.Down(r, pair[0], pair[1]) == want {
					t.Fatalf("round %d pair %v: Down disagrees with Active", r, pair)
				}
			}
		}
	}
}

// TestFaultyComposition checks present = base AND NOT fault on a random
// base: outside the faults the base's draws pass through unchanged.
func TestFaultyComposition(t *testing.T) {
	g := testGraph(t)
	base := Bernoulli{G: g, Seed: 4}
	f, err := NewFaulty(g, base, []Cut{{Edges: [][2]int{{1, 2}}, From: 5, To: 9}},
		[]Partition{{Groups: [][]int{{0, 1}}, From: 20, To: 25}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Base() != EdgeProcess(base) {
		t.Error("Base does not return the base process")
	}
	changed := 0
	for r := 0; r < 40; r++ {
		for _, e := range g.Edges {
			for d := 0; d < 3; d++ {
				fault := r >= 5 && r < 9 && e.I == 1 && e.J == 2 ||
					r >= 20 && r < 25 && (e.I <= 1) != (e.J <= 1)
				want := base.Active(r, d, e.I, e.J) && !fault
				if got := f.Active(r, d, e.J, e.I); got != want {
					t.Fatalf("round %d draw %d edge {%d,%d}: %v, want %v", r, d, e.I, e.J, got, want)
				}
				if fault && base.Active(r, d, e.I, e.J) {
					changed++
				}
			}
		}
	}
	if changed == 0 {
		t.Fatal("no fault removed a present edge; the test checks nothing")
	}
}

func TestFaultyRejects(t *testing.T) {
	g := geRing(t, 6, 1)
	tests := []struct {
		name  string
		cuts  []Cut
		parts []Partition
		want  string
	}{
		{"cut of a non-edge", []Cut{{Edges: [][2]int{{0, 3}}, From: 0, To: 5}}, nil, "cut 0: {0,3} is not an edge"},
		{"empty cut range", []Cut{{Edges: [][2]int{{0, 1}}, From: 5, To: 5}}, nil, "cut 0: rounds [5, 5)"},
		{"negative from", nil, []Partition{{Groups: [][]int{{0}}, From: -1, To: 5}}, "partition 0: rounds [-1, 5)"},
		{"agent out of range", nil, []Partition{{Groups: [][]int{{0, 6}}, From: 0, To: 5}}, "agent 6 is outside [0, 6)"},
		{"overlapping groups", nil, []Partition{{Groups: [][]int{{0, 1}, {1, 2}}, From: 0, To: 5}}, "group 1: agent 1 is already in group 0"},
	}
	for _, tt := range tests {
		_, err := NewFaulty(g, always{}, tt.cuts, tt.parts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
