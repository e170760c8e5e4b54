package graph

import "fmt"

// Presence probabilities. Each function returns a new graph with the same
// edges and new p_ij in (0, 1]; the receiver is not modified.

// WithUniformP returns a copy of g with p_ij = p on every edge.
func (g *Graph) WithUniformP(p float64) (*Graph, error) {
	if !(p > 0 && p <= 1) {
		return nil, fmt.Errorf("graph: uniform presence probability %v must be in (0, 1]", p)
	}
	return g.WithEdgeP(func(int, int) float64 { return p })
}

// WithEdgeP returns a copy of g with p_ij = f(i, j) on every edge {i, j},
// i < j. It fails, naming the edge, if some f(i, j) is not in (0, 1].
func (g *Graph) WithEdgeP(f func(i, j int) float64) (*Graph, error) {
	if f == nil {
		return nil, fmt.Errorf("graph: presence probability function is nil")
	}
	edges := make([]Edge, len(g.Edges))
	for k, e := range g.Edges {
		p := f(e.I, e.J)
		if !(p > 0 && p <= 1) {
			return nil, fmt.Errorf("graph: edge {%d,%d}: presence probability %v must be in (0, 1]", e.I, e.J, p)
		}
		edges[k] = Edge{I: e.I, J: e.J, P: p}
	}
	return New(g.N, edges)
}

// WithRandomP returns a copy of g with p_ij = lo + (hi - lo) U_ij, where
// U_ij = U(seed, 0, ., i, j) is uniform on [0, 1): independent per-edge
// probabilities uniform on [lo, hi), or exactly lo when lo = hi. It
// requires 0 < lo <= hi <= 1.
func (g *Graph) WithRandomP(lo, hi float64, seed uint64) (*Graph, error) {
	if !(lo > 0 && lo <= hi && hi <= 1) {
		return nil, fmt.Errorf("graph: random presence probabilities in [%v, %v]: need 0 < lo <= hi <= 1", lo, hi)
	}
	return g.WithEdgeP(func(i, j int) float64 {
		return lo + float64((hi-lo)*StreamRandomP.Uniform(seed, 0, uint64(i), uint64(j)))
	})
}
