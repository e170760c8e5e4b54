// Package graph owns the communication topology of a consim run: static
// topologies, the per-pair presence probabilities p_ij, the random
// time-varying edge process driven by common randomness, and matrix views
// (incidence W(zeta), E[W], weighted Laplacians, spectra) built with gonum;
// and the same for directed graphs: digraphs whose arcs i -> j carry their
// own p_ij, the arc process, periodic sequences of digraphs, and the
// column- and row-stochastic weights of push-sum and push-pull with their
// mean spectra (digraph*.go, arcs.go, sequence.go, stochastic.go).
//
// # Common randomness
//
// Every random choice of a run is Hash(seed, round, stream, a, b) or a PCG
// source seeded from it (Stream.Seed, SeedSample), where stream is one of
// the named streams of streams.go (edge draws, samples, problem data,
// initial points, topologies, edge chains, faults); no package spells a
// draw number of its own, and a purpose outside the registry takes
// NamedStream(name). TestStreamsDistinct checks that no two streams meet,
// and the golden tests pin the bits of Hash, Uniform and SeedSample.
//
// # Floating point
//
// A run's bits must not depend on the machine: the same scenario and seed
// give the same iterates on amd64 at every GOAMD64 level and on arm64. The
// Go specification lets the compiler fuse x*y + z into one fused
// multiply-add, rounded once, unless an explicit conversion rounds the
// product; amd64 fuses from GOAMD64=v3 on and arm64 always. The rule for
// every kernel on a run's bit path (this package, the algorithms' agents
// and references, the problems' oracles, the measures) is therefore:
// where Go may fuse, round explicitly,
//
//	s += float64(a * b)         not  s += a * b
//	x -= float64(tau * g[l])    not  x -= tau * g[l]
//	u := float64(v * v); 1 + u  not  u := v * v; 1 + u
//
// and sum in a fixed order. TestNoFusedMultiplyAdd compiles those packages
// for amd64/v3 and arm64 and fails on any fused instruction, naming the
// line. gonum's kernels are outside the rule (its portable Go code, which
// arm64 runs, may fuse and sums in other orders than its amd64 assembly),
// and so are the math package's Exp and Log (assembly per architecture,
// and on amd64 chosen at run time by CPU features): code on a bit path
// uses the rounded kernels of its own package (problem's dot, axpy and
// exp; SymEigenvalues here for spectra) and keeps gonum and the math
// package's transcendental functions to references compared with
// tolerances and to reported values.
//
// graph imports nothing from consim; every other package may import it.
package graph

import (
	"fmt"
	"sort"
)

// Edge is an unordered pair {I, J} with I < J of a graph, present in any
// round with probability P in (0, 1].
type Edge struct {
	I, J int
	P    float64
}

// Graph is an undirected graph on agents 0..N-1 whose edges carry presence
// probabilities. Edges are sorted by (I, J) and unique; the edge index k is
// the row of the edge-agent incidence matrix W.
type Graph struct {
	N     int
	Edges []Edge

	nbrs  [][]int        // nbrs[i]: neighbours of i, ascending
	index map[[2]int]int // {i,j} (i<j) -> edge index
}

// New validates and indexes a graph on n agents. Pairs are normalised to
// I < J and sorted; self loops, duplicates, ids outside [0, n) and
// probabilities outside (0, 1] are errors.
func New(n int, edges []Edge) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: number of agents %d: must be at least 1", n)
	}
	es := make([]Edge, len(edges))
	for k, e := range edges {
		if e.I > e.J {
			e.I, e.J = e.J, e.I
		}
		if e.I == e.J {
			return nil, fmt.Errorf("graph: edge %d is a self loop at agent %d", k, e.I)
		}
		if e.I < 0 || e.J >= n {
			return nil, fmt.Errorf("graph: edge {%d,%d}: agent ids must be in [0, %d)", e.I, e.J, n)
		}
		if !(e.P > 0 && e.P <= 1) {
			return nil, fmt.Errorf("graph: edge {%d,%d}: presence probability %v must be in (0, 1]", e.I, e.J, e.P)
		}
		es[k] = e
	}
	sort.Slice(es, func(a, b int) bool {
		if es[a].I != es[b].I {
			return es[a].I < es[b].I
		}
		return es[a].J < es[b].J
	})
	g := &Graph{N: n, Edges: es, nbrs: make([][]int, n), index: make(map[[2]int]int, len(es))}
	for k, e := range es {
		key := [2]int{e.I, e.J}
		if _, dup := g.index[key]; dup {
			return nil, fmt.Errorf("graph: edge {%d,%d} listed twice", e.I, e.J)
		}
		g.index[key] = k
		g.nbrs[e.I] = append(g.nbrs[e.I], e.J)
		g.nbrs[e.J] = append(g.nbrs[e.J], e.I)
	}
	for i := range g.nbrs {
		sort.Ints(g.nbrs[i])
	}
	return g, nil
}

// Neighbors returns the neighbours of agent i in ascending order. The
// slice is shared; callers must not modify it.
func (g *Graph) Neighbors(i int) []int { return g.nbrs[i] }

// EdgeIndex returns the index k of the edge {i, j} (either order) and
// whether it exists.
func (g *Graph) EdgeIndex(i, j int) (int, bool) {
	if i > j {
		i, j = j, i
	}
	k, ok := g.index[[2]int{i, j}]
	return k, ok
}

// P returns p_ij, the presence probability of {i, j}, or 0 if the pair is
// not an edge.
func (g *Graph) P(i, j int) float64 {
	if k, ok := g.EdgeIndex(i, j); ok {
		return g.Edges[k].P
	}
	return 0
}

// Sign returns s_ij = +1 if i < j and -1 otherwise: the entry of agent i in
// the incidence row of the pair {i, j}.
func Sign(i, j int) float64 {
	if i < j {
		return 1
	}
	return -1
}
