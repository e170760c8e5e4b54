package graph

import (
	"strings"
	"testing"
)

// degreeCount returns how many agents have each degree.
func degreeCount(g *Graph) map[int]int {
	c := map[int]int{}
	for i := 0; i < g.N; i++ {
		c[g.Degree(i)]++
	}
	return c
}

// checkIncidenceConsistent verifies that the neighbour lists, the edge
// index and the edge list describe the same graph and that degrees sum to
// 2|E|.
func checkIncidenceConsistent(t *testing.T, g *Graph) {
	t.Helper()
	sum := 0
	for i := 0; i < g.N; i++ {
		sum += g.Degree(i)
		for _, j := range g.Neighbors(i) {
			k, ok := g.EdgeIndex(i, j)
			if !ok {
				t.Fatalf("neighbour %d of %d has no edge index", j, i)
			}
			e := g.Edges[k]
			if e.I != min(i, j) || e.J != max(i, j) {
				t.Fatalf("EdgeIndex(%d,%d) = %d points to {%d,%d}", i, j, k, e.I, e.J)
			}
		}
	}
	if sum != 2*g.NumEdges() {
		t.Fatalf("degree sum %d != 2|E| = %d", sum, 2*g.NumEdges())
	}
}

func TestTopologies(t *testing.T) {
	tests := []struct {
		name      string
		build     func() (*Graph, error)
		n, edges  int
		degrees   map[int]int // degree -> number of agents
		connected bool
		diameter  int
	}{
		{"complete/1", func() (*Graph, error) { return Complete(1) }, 1, 0, map[int]int{0: 1}, true, 0},
		{"complete/2", func() (*Graph, error) { return Complete(2) }, 2, 1, map[int]int{1: 2}, true, 1},
		{"complete/6", func() (*Graph, error) { return Complete(6) }, 6, 15, map[int]int{5: 6}, true, 1},
		{"ring/1", func() (*Graph, error) { return Ring(1) }, 1, 0, map[int]int{0: 1}, true, 0},
		{"ring/2", func() (*Graph, error) { return Ring(2) }, 2, 1, map[int]int{1: 2}, true, 1},
		{"ring/3", func() (*Graph, error) { return Ring(3) }, 3, 3, map[int]int{2: 3}, true, 1},
		{"ring/7", func() (*Graph, error) { return Ring(7) }, 7, 7, map[int]int{2: 7}, true, 3},
		{"ring/8", func() (*Graph, error) { return Ring(8) }, 8, 8, map[int]int{2: 8}, true, 4},
		{"path/1", func() (*Graph, error) { return Path(1) }, 1, 0, map[int]int{0: 1}, true, 0},
		{"path/5", func() (*Graph, error) { return Path(5) }, 5, 4, map[int]int{1: 2, 2: 3}, true, 4},
		{"star/1", func() (*Graph, error) { return Star(1) }, 1, 0, map[int]int{0: 1}, true, 0},
		{"star/6", func() (*Graph, error) { return Star(6) }, 6, 5, map[int]int{1: 5, 5: 1}, true, 2},
		{"grid/3x4", func() (*Graph, error) { return Grid(3, 4, false) }, 12, 17, map[int]int{2: 4, 3: 6, 4: 2}, true, 5},
		{"grid/1x4", func() (*Graph, error) { return Grid(1, 4, false) }, 4, 3, map[int]int{1: 2, 2: 2}, true, 3},
		{"torus/3x4", func() (*Graph, error) { return Grid(3, 4, true) }, 12, 24, map[int]int{4: 12}, true, 3},
		{"torus/2x4", func() (*Graph, error) { return Grid(2, 4, true) }, 8, 12, map[int]int{3: 8}, true, 3},
		{"torus/1x5", func() (*Graph, error) { return Grid(1, 5, true) }, 5, 5, map[int]int{2: 5}, true, 2},
		{"torus/2x2", func() (*Graph, error) { return Grid(2, 2, true) }, 4, 4, map[int]int{2: 4}, true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			if g.N != tc.n || g.NumEdges() != tc.edges {
				t.Fatalf("N=%d |E|=%d, want N=%d |E|=%d", g.N, g.NumEdges(), tc.n, tc.edges)
			}
			got := degreeCount(g)
			if len(got) != len(tc.degrees) {
				t.Fatalf("degree histogram %v, want %v", got, tc.degrees)
			}
			for d, c := range tc.degrees {
				if got[d] != c {
					t.Fatalf("degree histogram %v, want %v", got, tc.degrees)
				}
			}
			if g.Connected() != tc.connected {
				t.Fatalf("Connected() = %v, want %v", g.Connected(), tc.connected)
			}
			if d := g.Diameter(); d != tc.diameter {
				t.Fatalf("Diameter() = %d, want %d", d, tc.diameter)
			}
			for _, e := range g.Edges {
				if e.P != 1 {
					t.Fatalf("edge {%d,%d} has p = %v, want 1", e.I, e.J, e.P)
				}
			}
			checkIncidenceConsistent(t, g)
		})
	}
}

func TestTopologyErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func() (*Graph, error)
		want  string
	}{
		{"complete/0", func() (*Graph, error) { return Complete(0) }, "at least 1"},
		{"ring/-1", func() (*Graph, error) { return Ring(-1) }, "at least 1"},
		{"path/0", func() (*Graph, error) { return Path(0) }, "at least 1"},
		{"star/0", func() (*Graph, error) { return Star(0) }, "at least 1"},
		{"grid/0x3", func() (*Graph, error) { return Grid(0, 3, false) }, "grid 0x3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.build()
			if err == nil || g != nil {
				t.Fatalf("got (%v, %v), want an error", g, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestDisconnected(t *testing.T) {
	g, err := New(5, []Edge{{0, 1, 1}, {1, 2, 0.5}, {3, 4, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Connected() {
		t.Fatal("two components reported connected")
	}
	if d := g.Diameter(); d != -1 {
		t.Fatalf("Diameter() = %d, want -1", d)
	}
	if g.MinDegree() != 1 || g.MaxDegree() != 2 {
		t.Fatalf("min/max degree %d/%d, want 1/2", g.MinDegree(), g.MaxDegree())
	}
}
