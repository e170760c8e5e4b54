package graph

import "fmt"

// Directed topologies. Every arc starts with presence probability
// p_ij = 1; set the probabilities afterwards with Digraph.WithUniformP,
// WithArcP or WithRandomP. The random ones are drawn from the
// common-randomness hash (StreamDigraph, StreamKOut), so a (seed,
// parameters) pair yields the same digraph on every host; their golden
// test pins the arcs.

// DirectedRing returns the directed cycle 0 -> 1 -> ... -> n-1 -> 0: n
// arcs i -> i+1 mod n for n >= 2 (for n = 2 the two arcs 0 -> 1 and
// 1 -> 0), none for n = 1. It is the sparsest strongly connected digraph:
// every agent has one out- and one in-neighbour.
func DirectedRing(n int) (*Digraph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: directed ring on %d agents: must be at least 1", n)
	}
	var arcs []Arc
	if n >= 2 {
		arcs = make([]Arc, n)
		for i := range arcs {
			arcs[i] = Arc{From: i, To: (i + 1) % n, P: 1}
		}
	}
	return buildDigraph("directed ring", n, arcs)
}

// RandomDigraph returns a random strongly connected digraph: the arcs of
// a random Hamiltonian cycle pi_0 -> pi_1 -> ... -> pi_{n-1} -> pi_0,
// with pi a uniformly random permutation, plus every other ordered pair
// (i, j), i != j, as an arc independently with probability q. The cycle
// makes it strongly connected whatever q, so nothing is redrawn: for
// q = 0 it is a directed ring on relabelled agents, and for q > 0 the
// mean out-degree is 1 + q (n - 2). The permutation is the Fisher-Yates
// shuffle with the uniforms U(seed, 0, StreamDigraph, k, 0), and pair
// (i, j) is an arc iff U(seed, 1, StreamDigraph, i, j) < q.
func RandomDigraph(n int, q float64, seed uint64) (*Digraph, error) {
	what := fmt.Sprintf("random digraph (n=%d, q=%g)", n, q)
	if n < 1 {
		return nil, fmt.Errorf("graph: %s: n must be at least 1", what)
	}
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("graph: %s: q must be in [0, 1]", what)
	}
	pi := make([]int, n)
	for k := range pi {
		pi[k] = k
	}
	for k := n - 1; k > 0; k-- {
		j := int(StreamDigraph.Uniform(seed, 0, uint64(k), 0) * float64(k+1))
		pi[k], pi[j] = pi[j], pi[k]
	}
	next := make([]int, n) // next[i]: i's successor on the cycle
	for k, i := range pi {
		next[i] = pi[(k+1)%n]
	}
	var arcs []Arc
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			if (n >= 2 && next[i] == j) || StreamDigraph.Uniform(seed, 1, uint64(i), uint64(j)) < q {
				arcs = append(arcs, Arc{From: i, To: j, P: 1})
			}
		}
	}
	return buildDigraph(what, n, arcs)
}

// KOut returns a random k-out digraph conditioned on strong connectivity:
// every agent i picks k distinct out-neighbours uniformly among the other
// n - 1 agents (a partial Fisher-Yates shuffle with the uniforms
// U(seed, a, StreamKOut, i, r) in attempt a), and the first of the
// attempts a = 0, 1, ... whose digraph is strongly connected is returned.
// It needs 1 <= k <= n - 1 and fails if none of MaxAttempts samples is
// strongly connected: for small k an agent that no one picks (probability
// about e^{-k} per agent) makes that likely on large n, and the error says
// to raise k.
func KOut(n, k int, seed uint64) (*Digraph, error) {
	what := fmt.Sprintf("k-out digraph (n=%d, k=%d)", n, k)
	if n < 2 || k < 1 || k > n-1 {
		return nil, fmt.Errorf("graph: %s: need n >= 2 and 1 <= k <= n-1", what)
	}
	cand := make([]int, n-1)
	arcs := make([]Arc, 0, n*k)
	for a := uint64(0); a < MaxAttempts; a++ {
		arcs = arcs[:0]
		for i := range n {
			for c := range cand {
				cand[c] = c
				if c >= i {
					cand[c] = c + 1
				}
			}
			for r := range k {
				j := r + int(StreamKOut.Uniform(seed, a, uint64(i), uint64(r))*float64(n-1-r))
				cand[r], cand[j] = cand[j], cand[r]
				arcs = append(arcs, Arc{From: i, To: cand[r], P: 1})
			}
		}
		d, err := buildDigraph(what, n, arcs)
		if err != nil {
			return nil, err
		}
		if d.StronglyConnected() {
			return d, nil
		}
	}
	return nil, fmt.Errorf("graph: %s: not strongly connected in any of %d samples; raise k", what, MaxAttempts)
}
