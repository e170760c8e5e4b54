package graph

import (
	"fmt"
	"math"
)

// Random topologies. They are drawn from the common-randomness hash, so a
// (seed, parameters) pair always yields the same graph on every host. Both
// are "forced connected": attempt a = 0, 1, 2, ... draws an independent
// sample from Hash(seed, a, stream, ., .) (StreamErdosRenyi,
// StreamGeometric) and the first connected sample is
// returned, i.e. the result is distributed as the model conditioned on
// connectivity.

// MaxAttempts bounds the number of samples a forced-connected random
// topology draws before giving up.
const MaxAttempts = 1000

// ErdosRenyi returns a sample of G(n, q) conditioned on being connected:
// each pair {i, j} is an edge independently with probability q, with
// attempt a using the uniforms U(seed, a, ., i, j). It fails if q is not in
// [0, 1] or if none of MaxAttempts samples is connected.
func ErdosRenyi(n int, q float64, seed uint64) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: Erdos-Renyi G(n=%d, q=%g): n must be at least 1", n, q)
	}
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("graph: Erdos-Renyi G(n=%d, q=%g): q must be in [0, 1]", n, q)
	}
	sample := func(a uint64) []Edge {
		var edges []Edge
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if StreamErdosRenyi.Uniform(seed, a, uint64(i), uint64(j)) < q {
					edges = append(edges, Edge{I: i, J: j, P: 1})
				}
			}
		}
		return edges
	}
	what := fmt.Sprintf("Erdos-Renyi G(n=%d, q=%g)", n, q)
	if n > 1 && q == 0 {
		return nil, fmt.Errorf("graph: %s: never connected", what)
	}
	return forceConnected(what, n, sample)
}

// RandomGeometric returns a random geometric graph conditioned on being
// connected: agent i sits at the point (U(seed, a, ., i, 0),
// U(seed, a, ., i, 1)) of the unit square and {i, j} is an edge iff the
// Euclidean distance between the points is at most radius. It fails if
// radius is negative or not finite, or if none of MaxAttempts samples is
// connected.
func RandomGeometric(n int, radius float64, seed uint64) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: random geometric graph (n=%d, radius=%g): n must be at least 1", n, radius)
	}
	if !(radius >= 0) || math.IsInf(radius, 1) {
		return nil, fmt.Errorf("graph: random geometric graph (n=%d, radius=%g): radius must be finite and non-negative", n, radius)
	}
	x := make([]float64, n)
	y := make([]float64, n)
	sample := func(a uint64) []Edge {
		for i := range x {
			x[i] = StreamGeometric.Uniform(seed, a, uint64(i), 0)
			y[i] = StreamGeometric.Uniform(seed, a, uint64(i), 1)
		}
		var edges []Edge
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if math.Hypot(x[i]-x[j], y[i]-y[j]) <= radius {
					edges = append(edges, Edge{I: i, J: j, P: 1})
				}
			}
		}
		return edges
	}
	return forceConnected(fmt.Sprintf("random geometric graph (n=%d, radius=%g)", n, radius), n, sample)
}

// forceConnected returns the graph of the first sample(a), a = 0, 1, ...,
// that connects all n agents.
func forceConnected(what string, n int, sample func(attempt uint64) []Edge) (*Graph, error) {
	for a := uint64(0); a < MaxAttempts; a++ {
		edges := sample(a)
		if !spans(n, edges) {
			continue
		}
		return build(what, n, edges)
	}
	return nil, fmt.Errorf("graph: %s: not connected in any of %d samples; raise the density", what, MaxAttempts)
}

// spans reports whether the edges connect all n agents (union-find).
func spans(n int, edges []Edge) bool {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	components := n
	for _, e := range edges {
		if a, b := find(e.I), find(e.J); a != b {
			parent[a] = b
			components--
		}
	}
	return components == 1
}
