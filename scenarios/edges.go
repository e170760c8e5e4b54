package scenarios

import (
	"fmt"
	"io"
	"os"

	"github.com/consim/consim/graph"
)

// recordDraws is the number of draws per round a recording holds: the
// ALM's zeta_0, zeta_1 and zeta_2 (graph.DrawDual ... graph.DrawPenalty).
const recordDraws = graph.DrawPenalty + 1

// buildProcess builds the edge process of the edges section on the graph
// g, whose p_ij are the scenario's presence probabilities, and returns it
// with the expected graph: the same edges carrying the stationary presence
// probabilities, so that E[W] (and the presets computed from it) match the
// process.
//
//   - bernoulli: edge {i, j} present in each draw with probability p_ij;
//     the expected graph is g.
//   - gilbert_elliott: p_good = edges.gilbert_elliott.p_good, or p_ij when
//     left out; the expected graph has pi_good p_good + pi_bad p_bad with
//     pi_bad = p_gb / (p_gb + p_bg) (graph.GilbertElliott).
//
// Cuts and partitions are then layered on the model (graph.Faulty). They
// are scheduled, not stationary, so they do not change the expected graph.
// With edges.replay the recording replaces the draws; the model still sets
// the expected graph, and the recording must cover every round of the run
// for the three draws.
func (s *Scenario) buildProcess(g *graph.Graph) (*graph.Graph, graph.EdgeProcess, error) {
	e := s.Edges
	expected := g
	var proc graph.EdgeProcess
	switch e.Model {
	case EdgeModelBernoulli:
		proc = graph.Bernoulli{G: g, Seed: s.Seed}.Specialize()
	case EdgeModelGilbertElliott:
		ge := e.GilbertElliott
		good := g
		if ge.PGood != nil {
			var err error
			if good, err = g.WithUniformP(*ge.PGood); err != nil {
				return nil, nil, s.errorAt("edges.gilbert_elliott.p_good", err)
			}
		}
		chain, err := graph.NewGilbertElliott(good, s.Seed, ge.PGB, ge.PBG, ge.PBad)
		if err != nil {
			return nil, nil, s.errorAt("edges.gilbert_elliott", err)
		}
		if expected, err = chain.Expected(); err != nil {
			return nil, nil, s.errorAt("edges.gilbert_elliott", err)
		}
		proc = chain
	default:
		return nil, nil, s.errorAt("edges.model", fmt.Errorf("edge model %q has no builder", e.Model))
	}
	if len(e.Cuts) > 0 || len(e.Partitions) > 0 {
		var err error
		if proc, err = s.faulty(g, proc); err != nil {
			return nil, nil, err
		}
	}
	if e.Replay != "" {
		rep, err := s.readReplay(expected)
		if err != nil {
			return nil, nil, err
		}
		proc = rep
	}
	return expected, proc, nil
}

// faulty layers edges.cuts and edges.partitions on base. Every cut edge
// must be an edge of g.
func (s *Scenario) faulty(g *graph.Graph, base graph.EdgeProcess) (graph.EdgeProcess, error) {
	cuts := make([]graph.Cut, len(s.Edges.Cuts))
	for c, cut := range s.Edges.Cuts {
		for k, pair := range cut.Edges {
			if _, ok := g.EdgeIndex(pair[0], pair[1]); !ok {
				key := elemKey(elemKey("edges.cuts", c)+".edges", k)
				return nil, s.errorAt(key, fmt.Errorf("[%d, %d] is not an edge of the graph (%s on %d agents)",
					pair[0], pair[1], s.Graph.Topology, g.N))
			}
		}
		cuts[c] = graph.Cut{Edges: cut.Edges, From: cut.From, To: healsAt(cut.To)}
	}
	parts := make([]graph.Partition, len(s.Edges.Partitions))
	for p, part := range s.Edges.Partitions {
		parts[p] = graph.Partition{Groups: part.Groups, From: part.From, To: healsAt(part.To)}
	}
	f, err := graph.NewFaulty(g, base, cuts, parts)
	if err != nil {
		return nil, s.errorAt("edges", err)
	}
	return f, nil
}

// healsAt maps a cut's or partition's to (0: never) to graph's To.
func healsAt(to int) int {
	if to == 0 {
		return graph.Forever
	}
	return to
}

// readReplay loads edges.replay for the graph g and checks that it covers
// the run: every round and the three draws of a round.
func (s *Scenario) readReplay(g *graph.Graph) (*graph.Replay, error) {
	f, err := os.Open(s.Edges.Replay)
	if err != nil {
		return nil, s.errorAt("edges.replay", fmt.Errorf("open edge recording: %w", err))
	}
	defer f.Close()
	rep, err := graph.ReadReplay(f, g)
	if err != nil {
		return nil, s.errorAt("edges.replay", fmt.Errorf("%s: %w", s.Edges.Replay, err))
	}
	if rep.Rounds() < s.Rounds || rep.Draws() < recordDraws {
		return nil, s.errorAt("edges.replay", fmt.Errorf(
			"%s holds %d rounds x %d draws; the run needs %d rounds x %d draws",
			s.Edges.Replay, rep.Rounds(), rep.Draws(), s.Rounds, recordDraws))
	}
	return rep, nil
}

// RecordEdges writes the realized edge sets of the run, every round
// 0..rounds-1 and the three draws zeta_0, zeta_1, zeta_2 of each, in the
// format of graph.Record. Setting edges.replay to the file replays them.
func (st *Setup) RecordEdges(w io.Writer) error {
	if st.Env.Digraph != nil {
		return fmt.Errorf("scenarios: %s: a recording holds undirected edges; topology %s draws arcs", st.Scenario.Name, st.Scenario.Graph.Topology)
	}
	if err := graph.Record(w, st.Graph, st.Process, st.Scenario.Rounds, recordDraws); err != nil {
		return fmt.Errorf("scenarios: %s: %w", st.Scenario.Name, err)
	}
	return nil
}
