package graph

// ArcProcess decides which arcs are present in each round and draw: the
// directed counterpart of EdgeProcess. Implementations must be pure
// functions of their arguments (plus their seed) and safe for concurrent
// use, so that the sender and the receiver of an arc, and any centralized
// reference, agree on it without communication. Nothing in it assumes
// synchronous rounds: a driver without global rounds asks about its own
// clock's ticks t.
type ArcProcess interface {
	// ArcUp reports whether the arc i -> j is present in round t for draw
	// d; false when i -> j is not an arc of the process's digraph.
	ArcUp(t, d, i, j int) bool
}

// arcDraw is the Bernoulli draw of the arc i -> j with presence
// probability p in draw d of round t: p >= 1, or U(seed, t,
// StreamArc.Phase(d), i, j) < p.
func arcDraw(seed uint64, t, d, i, j int, p float64) bool {
	if p >= 1 {
		return true
	}
	return p > 0 && StreamArc.Phase(d).Uniform(seed, uint64(t), uint64(i), uint64(j)) < p
}

// ArcBernoulli is the directed random graph model: in every round and
// draw, the arc i -> j of D is present with probability p_ij,
// independently of every other arc (its reverse j -> i included), round
// and draw: U(seed, t, StreamArc.Phase(d), i, j) < p_ij.
type ArcBernoulli struct {
	D    *Digraph
	Seed uint64
}

// ArcUp implements ArcProcess.
func (b ArcBernoulli) ArcUp(t, d, i, j int) bool { return arcDraw(b.Seed, t, d, i, j, b.D.P(i, j)) }

// SymmetricArcs is an undirected edge process seen as an arc process on
// Symmetric(G): both arcs of the edge {i, j} are present exactly when the
// edge is, so an algorithm written for arcs runs unchanged on an
// undirected run.
type SymmetricArcs struct {
	G     *Graph
	Edges EdgeProcess
}

// ArcUp implements ArcProcess: Edges.Active(t, d, min(i, j), max(i, j))
// for an edge {i, j} of G, false otherwise.
func (s SymmetricArcs) ArcUp(t, d, i, j int) bool {
	if _, ok := s.G.EdgeIndex(i, j); !ok {
		return false
	}
	return s.Edges.Active(t, d, min(i, j), max(i, j))
}

// EitherArc is the undirected view of an arc process, on the underlying
// graph of its digraph: the edge {i, j} is present when at least one of
// the arcs i -> j and j -> i is, i.e. when the pair communicates in some
// direction. With ArcBernoulli it is present with the probability
// Digraph.Underlying gives the edge.
type EitherArc struct{ Arcs ArcProcess }

// Active implements EdgeProcess.
func (e EitherArc) Active(t, d, i, j int) bool {
	return e.Arcs.ArcUp(t, d, i, j) || e.Arcs.ArcUp(t, d, j, i)
}
