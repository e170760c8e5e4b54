package scenarios

import (
	"fmt"
	"math"
	"strings"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
)

// Directed topologies: graph.topology directed_ring, digraph, k_out and
// directed_sequence. Their arcs i -> j are drawn each round by the arc
// process graph.ArcBernoulli (graph.SequenceArcs for a sequence) with
// p_ij = graph.p (or from graph.p_range), i -> j independently of j -> i,
// and only the algorithms that exchange along arcs (registry.Algorithm's
// Directed) run on them. The measures see the underlying undirected graph
// (graph.Digraph.Underlying).

// Directed reports whether topology names a directed topology.
func Directed(topology string) bool {
	switch topology {
	case TopologyDirectedRing, TopologyDigraph, TopologyKOut, TopologyDirectedSequence:
		return true
	}
	return false
}

// directed checks the keys of the directed topologies, and that a
// directed topology comes with the Bernoulli model, none of the edge
// schedules and an algorithm that runs on arcs.
func (v *validator) directed() {
	s := v.s
	g := s.Graph
	t := g.Topology
	v.onlyWith("graph.k", g.K != 0, t == TopologyKOut, TopologyKOut)
	v.onlyWith("graph.period", g.Period != 0, t == TopologyDirectedSequence, TopologyDirectedSequence)
	switch t {
	case TopologyDigraph:
		if v.required("graph.q", g.Q == 0, "for topology digraph, the probability in (0, 1] of each arc beyond a random Hamiltonian cycle") {
			v.inUnit("graph.q", g.Q)
		}
	case TopologyDirectedSequence:
		if !(g.Q >= 0 && g.Q <= 1) {
			v.fail("graph.q", "%s is outside [0, 1]", registry.Num(g.Q))
		}
		if v.required("graph.period", g.Period == 0, "for topology directed_sequence, the number of digraphs, an integer >= 1") {
			v.atLeast("graph.period", g.Period, 1)
		}
	case TopologyKOut:
		if v.required("graph.k", g.K == 0, "for topology k_out, an integer in [1, agents-1]") &&
			v.atLeast("graph.k", g.K, 1) && s.Agents > 0 && g.K > s.Agents-1 {
			v.fail("graph.k", "must be at most agents-1 = %d, got %d", s.Agents-1, g.K)
		}
	}
	if !Directed(t) {
		return
	}
	why := fmt.Sprintf("topology %s draws each arc with the bernoulli model", t)
	if s.Edges.Model != EdgeModelBernoulli {
		v.fail("edges.model", "%s: must be %s, got %s", why, EdgeModelBernoulli, s.Edges.Model)
	}
	for _, k := range []struct {
		key string
		set bool
	}{
		{"edges.same_draw", s.Edges.SameDraw},
		{"edges.cuts", len(s.Edges.Cuts) > 0},
		{"edges.partitions", len(s.Edges.Partitions) > 0},
		{"edges.replay", s.Edges.Replay != ""},
	} {
		if k.set {
			v.fail(k.key, "%s and has no edge schedules or recordings: leave %s out", why, k.key)
		}
	}
	reg := s.registry()
	if a, ok := reg.Algorithm(s.Algorithm.Name); ok && !a.Directed {
		var on []string
		for _, name := range reg.Algorithms() {
			if e, _ := reg.Algorithm(name); e.Directed {
				on = append(on, name)
			}
		}
		v.fail("algorithm.name", "%s exchanges along undirected edges; topology %s has directed arcs (algorithms on arcs: %s)",
			a.Name, t, strings.Join(on, ", "))
	}
}

// directedDegree estimates the number of edges of the underlying graph of
// a directed topology (its number of arcs, at most n(n-1)/2) and its
// largest degree (in- plus out-degree), for the memory estimate.
func (s *Scenario) directedDegree() (edges, maxd float64) {
	n := float64(s.Agents)
	g := s.Graph
	var out float64 // mean out-degree
	switch g.Topology {
	case TopologyDirectedRing:
		out = math.Min(1, n-1)
	case TopologyDigraph, TopologyDirectedSequence:
		out = math.Min(n-1, 1+g.Q*math.Max(n-2, 0))
	case TopologyKOut:
		out = float64(g.K)
	}
	spread := math.Ceil(4*math.Sqrt(out) + 1)
	return math.Min(n*out, n*(n-1)/2), math.Min(n-1, 2*out+spread)
}

// buildDirected builds the digraph of a directed topology with its arc
// probabilities and its arc process. The random topologies draw from the
// topology seed of the undirected ones, the random p_ij from theirs, and
// a sequence splits the digraph's arcs with a seed of its own (round 2 of
// graph.StreamGraph).
func (s *Scenario) buildDirected() (*graph.Digraph, graph.ArcProcess, error) {
	gs := s.Graph
	n := s.Agents
	seed := graph.StreamGraph.Hash(s.Seed, 0, 0, 0)
	var d *graph.Digraph
	var err error
	switch gs.Topology {
	case TopologyDirectedRing:
		d, err = graph.DirectedRing(n)
	case TopologyDigraph, TopologyDirectedSequence:
		d, err = graph.RandomDigraph(n, gs.Q, seed)
	case TopologyKOut:
		d, err = graph.KOut(n, gs.K, seed)
	default:
		err = fmt.Errorf("topology %q has no builder", gs.Topology)
	}
	if err != nil {
		return nil, nil, s.errorAt("graph.topology", err)
	}
	if d, err = withP(s, d); err != nil {
		return nil, nil, err
	}
	if !d.StronglyConnected() {
		return nil, nil, s.errorAt("graph.topology", fmt.Errorf(
			"the digraph (%s on %d agents, %d arcs) is not strongly connected: every agent must reach every other", gs.Topology, n, len(d.Arcs)))
	}
	if gs.Topology != TopologyDirectedSequence {
		return d, graph.ArcBernoulli{D: d, Seed: s.Seed}, nil
	}
	seq, err := graph.SplitSequence(d, gs.Period, graph.StreamGraph.Hash(s.Seed, 2, 0, 0))
	if err != nil {
		return nil, nil, s.errorAt("graph.period", err)
	}
	return seq.Union(), graph.SequenceArcs{S: seq, Seed: s.Seed}, nil
}

// DirectedStats returns the summary of a directed run's digraph (of its
// sequence for directed_sequence, whose rates are those of the schedule)
// and true, or false for an undirected run.
func (st *Setup) DirectedStats() (graph.DirectedStats, bool, error) {
	d := st.Env.Digraph
	if d == nil {
		return graph.DirectedStats{}, false, nil
	}
	stats, err := d.Stats()
	if seq, ok := st.Env.Arcs.(graph.SequenceArcs); ok {
		stats, err = seq.S.Stats()
	}
	if err != nil {
		return graph.DirectedStats{}, false, fmt.Errorf("scenarios: digraph statistics: %w", err)
	}
	return stats, true, nil
}
