package graph

import "testing"

// TestEdgeLayout: on a path 0-1-2-3, agent 1 owns {1,2} (3 values) and
// reads {0,1} (1 value): its payload is [read 0-1 | owned 1-2].
func TestEdgeLayout(t *testing.T) {
	g, err := Path(4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ i, j, off, size int }{
		{1, 0, 0, 4}, {1, 2, 1, 4}, {1, 3, -1, 4}, {0, 1, 0, 3}, {3, 2, 0, 1}, {3, -1, -1, 1},
	} {
		if off, size := g.EdgeLayout(c.i, c.j, 3); off != c.off || size != c.size {
			t.Errorf("EdgeLayout(%d, %d, 3) = %d, %d; want %d, %d", c.i, c.j, off, size, c.off, c.size)
		}
	}
}
