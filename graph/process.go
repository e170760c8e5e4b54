package graph

// EdgeProcess decides which edges are present in each round and draw.
// Implementations must be pure functions of their arguments (plus their
// seed), safe for concurrent use, so that both endpoints of an edge and any
// centralized reference agree without communication.
type EdgeProcess interface {
	// Active reports whether the edge {i, j} (i < j, an edge of the graph)
	// is present in round t for draw d.
	Active(t, d, i, j int) bool
}

// Bernoulli is the paper's discrete-time random graph model (Chaintreau et
// al.): in every round and draw, edge {i, j} is present with probability
// p_ij, independently of all other edges, rounds and draws.
type Bernoulli struct {
	G    *Graph
	Seed uint64
}

// Active implements EdgeProcess: present iff U(seed, t, d, i, j) < p_ij,
// with the pair taken in the order i < j so both endpoints agree.
func (b Bernoulli) Active(t, d, i, j int) bool {
	if i > j {
		i, j = j, i
	}
	p := b.G.P(i, j)
	if p >= 1 {
		return true
	}
	return Uniform(b.Seed, uint64(t), uint64(d), uint64(i), uint64(j)) < p
}
