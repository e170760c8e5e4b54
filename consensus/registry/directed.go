package registry

import "github.com/consim/consim/graph"

// Directed returns the run's digraph and arc process: Digraph and Arcs for
// a directed topology, and for an undirected one the digraph of Graph
// (both arcs of every edge) with Process seen as an arc process, so that
// an algorithm on arcs runs on every topology.
func (e *Env) Directed() (*graph.Digraph, graph.ArcProcess) {
	if e.Digraph != nil {
		return e.Digraph, e.Arcs
	}
	return graph.Symmetric(e.Graph), graph.SymmetricArcs{G: e.Graph, Edges: e.Process}
}
