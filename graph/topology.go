package graph

import "fmt"

// Deterministic topologies. Every edge starts with presence probability
// p_ij = 1; set the probabilities afterwards with WithUniformP, WithEdgeP or
// WithRandomP.

// Complete returns K_n: every pair {i, j}, i < j, is an edge, so
// |E| = n(n-1)/2 and every agent has degree n-1.
func Complete(n int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: complete graph on %d agents: must be at least 1", n)
	}
	edges := make([]Edge, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			edges = append(edges, Edge{I: i, J: j, P: 1})
		}
	}
	return build("complete graph", n, edges)
}

// Ring returns the cycle C_n with edges {i, i+1 mod n}: n edges for n >= 3,
// a single edge {0, 1} for n = 2 and no edge for n = 1.
func Ring(n int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: ring on %d agents: must be at least 1", n)
	}
	var edges []Edge
	for i := 0; i+1 < n; i++ {
		edges = append(edges, Edge{I: i, J: i + 1, P: 1})
	}
	if n >= 3 {
		edges = append(edges, Edge{I: 0, J: n - 1, P: 1})
	}
	return build("ring", n, edges)
}

// Path returns the path P_n with edges {i, i+1}, i = 0..n-2.
func Path(n int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: path on %d agents: must be at least 1", n)
	}
	edges := make([]Edge, 0, n-1)
	for i := 0; i+1 < n; i++ {
		edges = append(edges, Edge{I: i, J: i + 1, P: 1})
	}
	return build("path", n, edges)
}

// Star returns the star S_n: agent 0 is the hub, joined to each of the
// agents 1..n-1, which have no other edges.
func Star(n int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: star on %d agents: must be at least 1", n)
	}
	edges := make([]Edge, 0, n-1)
	for j := 1; j < n; j++ {
		edges = append(edges, Edge{I: 0, J: j, P: 1})
	}
	return build("star", n, edges)
}

// Grid returns the rows x cols grid graph: agent r*cols + c sits at row r,
// column c and is joined to its right and lower neighbours. With torus, each
// row and column also wraps around, i.e. the graph is C_rows x C_cols;
// wrap-around edges are added only along a dimension of length at least 3,
// since for length 2 the wrap edge already exists and for length 1 it would
// be a self loop.
func Grid(rows, cols int, torus bool) (*Graph, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("graph: grid %dx%d: rows and columns must be at least 1", rows, cols)
	}
	id := func(r, c int) int { return r*cols + c }
	var edges []Edge
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if c+1 < cols {
				edges = append(edges, Edge{I: id(r, c), J: id(r, c+1), P: 1})
			}
			if r+1 < rows {
				edges = append(edges, Edge{I: id(r, c), J: id(r+1, c), P: 1})
			}
		}
	}
	if torus {
		if cols >= 3 {
			for r := 0; r < rows; r++ {
				edges = append(edges, Edge{I: id(r, 0), J: id(r, cols-1), P: 1})
			}
		}
		if rows >= 3 {
			for c := 0; c < cols; c++ {
				edges = append(edges, Edge{I: id(0, c), J: id(rows-1, c), P: 1})
			}
		}
	}
	return build(fmt.Sprintf("grid %dx%d", rows, cols), rows*cols, edges)
}

// build calls New and names the topology in any error.
func build(what string, n int, edges []Edge) (*Graph, error) {
	g, err := New(n, edges)
	if err != nil {
		return nil, fmt.Errorf("%s on %d agents: %w", what, n, err)
	}
	return g, nil
}
