package graph

import (
	"fmt"
	"sort"
)

// Directed graphs. A Digraph is the directed counterpart of Graph: its
// arcs i -> j say that agent i can send to agent j, each with its own
// presence probability p_ij, independent of the arc j -> i (which may be
// absent, or present with another probability). The undirected Graph of a
// run stays the object of the measures and of the undirected algorithms;
// Underlying maps a digraph onto it, Symmetric maps a graph onto a
// digraph.

// Arc is the directed edge From -> To of a Digraph, present in any round
// with probability P in (0, 1].
type Arc struct {
	From, To int
	P        float64
}

// Digraph is a directed graph on agents 0..N-1 whose arcs carry presence
// probabilities. Arcs are sorted by (From, To) and unique, without self
// loops; the arc index k is the position in Arcs.
type Digraph struct {
	N    int
	Arcs []Arc

	out, in [][]int        // out[i], in[i]: out- and in-neighbours of i, ascending
	index   map[[2]int]int // (from, to) -> arc index
}

// NewDigraph validates and indexes a digraph on n agents. Self loops,
// duplicate arcs, ids outside [0, n) and probabilities outside (0, 1] are
// errors.
func NewDigraph(n int, arcs []Arc) (*Digraph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: digraph on %d agents: must be at least 1", n)
	}
	as := make([]Arc, len(arcs))
	for k, a := range arcs {
		switch {
		case a.From == a.To:
			return nil, fmt.Errorf("graph: arc %d is a self loop at agent %d", k, a.From)
		case a.From < 0 || a.From >= n || a.To < 0 || a.To >= n:
			return nil, fmt.Errorf("graph: arc %d->%d: agent ids must be in [0, %d)", a.From, a.To, n)
		case !(a.P > 0 && a.P <= 1):
			return nil, fmt.Errorf("graph: arc %d->%d: presence probability %v must be in (0, 1]", a.From, a.To, a.P)
		}
		as[k] = a
	}
	sort.Slice(as, func(a, b int) bool {
		if as[a].From != as[b].From {
			return as[a].From < as[b].From
		}
		return as[a].To < as[b].To
	})
	d := &Digraph{N: n, Arcs: as, out: make([][]int, n), in: make([][]int, n), index: make(map[[2]int]int, len(as))}
	for k, a := range as {
		key := [2]int{a.From, a.To}
		if _, dup := d.index[key]; dup {
			return nil, fmt.Errorf("graph: arc %d->%d listed twice", a.From, a.To)
		}
		d.index[key] = k
		d.out[a.From] = append(d.out[a.From], a.To)
		d.in[a.To] = append(d.in[a.To], a.From)
	}
	for i := range d.in {
		sort.Ints(d.in[i]) // out[i] is ascending already
	}
	return d, nil
}

// buildDigraph calls NewDigraph and names the topology in any error.
func buildDigraph(what string, n int, arcs []Arc) (*Digraph, error) {
	d, err := NewDigraph(n, arcs)
	if err != nil {
		return nil, fmt.Errorf("%s on %d agents: %w", what, n, err)
	}
	return d, nil
}

// Out returns the out-neighbours j of agent i (arcs i -> j), ascending.
// The slice is shared; callers must not modify it.
func (d *Digraph) Out(i int) []int { return d.out[i] }

// In returns the in-neighbours j of agent i (arcs j -> i), ascending. The
// slice is shared; callers must not modify it.
func (d *Digraph) In(i int) []int { return d.in[i] }

// OutDegree returns the number of arcs leaving agent i.
func (d *Digraph) OutDegree(i int) int { return len(d.out[i]) }

// InDegree returns the number of arcs entering agent i.
func (d *Digraph) InDegree(i int) int { return len(d.in[i]) }

// ArcIndex returns the index of the arc from -> to and whether it exists.
func (d *Digraph) ArcIndex(from, to int) (int, bool) {
	k, ok := d.index[[2]int{from, to}]
	return k, ok
}

// P returns p_ij, the presence probability of the arc i -> j, or 0 if it
// is not an arc.
func (d *Digraph) P(i, j int) float64 {
	if k, ok := d.ArcIndex(i, j); ok {
		return d.Arcs[k].P
	}
	return 0
}

// WithUniformP returns a copy of d with p_ij = p on every arc.
func (d *Digraph) WithUniformP(p float64) (*Digraph, error) {
	if !(p > 0 && p <= 1) {
		return nil, fmt.Errorf("graph: uniform arc presence probability %v must be in (0, 1]", p)
	}
	return d.WithArcP(func(int, int) float64 { return p })
}

// WithArcP returns a copy of d with p_ij = f(i, j) on every arc i -> j. It
// fails, naming the arc, if some f(i, j) is not in (0, 1].
func (d *Digraph) WithArcP(f func(from, to int) float64) (*Digraph, error) {
	if f == nil {
		return nil, fmt.Errorf("graph: arc presence probability function is nil")
	}
	arcs := make([]Arc, len(d.Arcs))
	for k, a := range d.Arcs {
		arcs[k] = Arc{From: a.From, To: a.To, P: f(a.From, a.To)}
	}
	return NewDigraph(d.N, arcs)
}

// WithRandomP returns a copy of d with p_ij = lo + (hi - lo) U_ij on
// every arc i -> j, U_ij = U(seed, 0, StreamRandomP, i, j) uniform on
// [0, 1): the pair is taken in the arc's order, so p_ij and p_ji are
// independent. It requires 0 < lo <= hi <= 1.
func (d *Digraph) WithRandomP(lo, hi float64, seed uint64) (*Digraph, error) {
	if !(lo > 0 && lo <= hi && hi <= 1) {
		return nil, fmt.Errorf("graph: random arc presence probabilities in [%v, %v]: need 0 < lo <= hi <= 1", lo, hi)
	}
	return d.WithArcP(func(i, j int) float64 {
		return lo + float64((hi-lo)*StreamRandomP.Uniform(seed, 0, uint64(i), uint64(j)))
	})
}

// Symmetric returns the digraph of g: the arcs i -> j and j -> i of every
// edge {i, j}, both with p_ij. An undirected run's edge process seen
// through SymmetricArcs draws both arcs of an edge together.
func Symmetric(g *Graph) *Digraph {
	arcs := make([]Arc, 0, 2*len(g.Edges))
	for _, e := range g.Edges {
		arcs = append(arcs, Arc{From: e.I, To: e.J, P: e.P}, Arc{From: e.J, To: e.I, P: e.P})
	}
	d, err := NewDigraph(g.N, arcs)
	if err != nil {
		panic(fmt.Sprintf("graph: the arcs of a valid graph: %v", err)) // g was validated by New
	}
	return d
}

// Underlying returns the undirected graph of d: an edge {i, j} for every
// pair joined by an arc in either direction, with the probability that at
// least one of them is present when they are drawn independently,
// p_ij + p_ji - p_ij p_ji (p_ij alone when j -> i is not an arc). Arcs of
// a Digraph have distinct endpoints, so it never fails.
func (d *Digraph) Underlying() *Graph {
	var edges []Edge
	for _, a := range d.Arcs {
		back := d.P(a.To, a.From)
		if back > 0 && a.To < a.From {
			continue // the pair was added with the arc a.To -> a.From
		}
		edges = append(edges, Edge{I: a.From, J: a.To, P: min(1, a.P+back-float64(a.P*back))})
	}
	g, err := New(d.N, edges)
	if err != nil {
		panic(fmt.Sprintf("graph: the underlying graph of a valid digraph: %v", err))
	}
	return g
}
