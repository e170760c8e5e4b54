package graph

import (
	"fmt"
	"math"
)

// Scheduled faults: link cuts and network partitions over ranges of
// rounds, layered on top of a random edge process. They are deterministic
// functions of the round, so both endpoints of an edge agree on them from
// the schedule alone.

// Forever is the To of a cut or partition that never heals.
const Forever = math.MaxInt

// Cut removes a set of edges from every draw of the rounds From <= t < To.
type Cut struct {
	// Edges are the pairs {i, j} cut (either order); each must be an edge.
	Edges [][2]int
	// From is the first round of the cut and To the first round after it
	// (Forever for a permanent cut); 0 <= From < To.
	From, To int
}

// Partition splits the agents into groups over the rounds From <= t < To:
// an edge whose endpoints lie in different groups is absent from every
// draw of those rounds. The agents listed in no group form one extra group
// together, so a single group cuts it off from the rest of the network. A
// partition heals at round To; To = Forever never heals.
type Partition struct {
	// Groups are disjoint sets of agent ids in [0, N).
	Groups [][]int
	// From is the first round of the partition, To the first round after
	// it; 0 <= From < To.
	From, To int
}

// Faulty is an edge process with scheduled faults:
//
//	present(t, d, i, j) = base(t, d, i, j) AND NOT cut(t, i, j) AND NOT split(t, i, j),
//
// where cut(t, i, j) holds when some Cut lists {i, j} and covers t, and
// split(t, i, j) when some Partition covering t puts i and j in different
// groups. It is safe for concurrent use when the base is. A query costs the
// base's query plus O(number of cuts and partitions) comparisons, and one
// edge lookup when a cut covers t.
type Faulty struct {
	base  EdgeProcess
	g     *Graph
	cuts  []cutSpan
	parts []partSpan
}

type cutSpan struct {
	from, to int
	edge     []bool // edge[k]: edge k is cut
}

type partSpan struct {
	from, to int
	group    []int // group[i]: the group of agent i
}

// NewFaulty composes base with the cuts and partitions on the graph g
// (the graph of base). It checks that every cut edge is an edge of g,
// that group ids lie in [0, N) and are listed once per partition, and that
// every range has 0 <= From < To.
func NewFaulty(g *Graph, base EdgeProcess, cuts []Cut, parts []Partition) (*Faulty, error) {
	if g == nil || base == nil {
		return nil, fmt.Errorf("graph: scheduled faults need a graph and a base process")
	}
	f := &Faulty{base: base, g: g}
	for c, cut := range cuts {
		if err := checkRange(cut.From, cut.To); err != nil {
			return nil, fmt.Errorf("graph: cut %d: %w", c, err)
		}
		span := cutSpan{from: cut.From, to: cut.To, edge: make([]bool, len(g.Edges))}
		for _, e := range cut.Edges {
			k, ok := g.EdgeIndex(e[0], e[1])
			if !ok {
				return nil, fmt.Errorf("graph: cut %d: {%d,%d} is not an edge of the graph", c, e[0], e[1])
			}
			span.edge[k] = true
		}
		f.cuts = append(f.cuts, span)
	}
	for p, part := range parts {
		if err := checkRange(part.From, part.To); err != nil {
			return nil, fmt.Errorf("graph: partition %d: %w", p, err)
		}
		group, err := groupsOf(g.N, part.Groups)
		if err != nil {
			return nil, fmt.Errorf("graph: partition %d: %w", p, err)
		}
		f.parts = append(f.parts, partSpan{from: part.From, to: part.To, group: group})
	}
	return f, nil
}

func checkRange(from, to int) error {
	if from < 0 || from >= to {
		return fmt.Errorf("rounds [%d, %d): need 0 <= from < to", from, to)
	}
	return nil
}

// groupsOf maps every agent to its group: the index of the group listing
// it, or len(groups) for agents listed nowhere.
func groupsOf(n int, groups [][]int) ([]int, error) {
	group := make([]int, n)
	for i := range group {
		group[i] = len(groups)
	}
	for gi, members := range groups {
		for _, i := range members {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("group %d: agent %d is outside [0, %d)", gi, i, n)
			}
			if group[i] != len(groups) {
				return nil, fmt.Errorf("group %d: agent %d is already in group %d", gi, i, group[i])
			}
			group[i] = gi
		}
	}
	return group, nil
}

// Base returns the process the faults are layered on.
func (f *Faulty) Base() EdgeProcess { return f.base }

// Down reports whether a scheduled fault removes {i, j} (either order) in
// round t, whatever the base process draws.
func (f *Faulty) Down(t, i, j int) bool {
	if i > j {
		i, j = j, i
	}
	if i < 0 || j >= f.g.N {
		return true
	}
	for _, p := range f.parts {
		if p.from <= t && t < p.to && p.group[i] != p.group[j] {
			return true
		}
	}
	k := -1
	for _, c := range f.cuts {
		if c.from <= t && t < c.to {
			if k < 0 {
				var ok bool
				if k, ok = f.g.EdgeIndex(i, j); !ok {
					return true
				}
			}
			if c.edge[k] {
				return true
			}
		}
	}
	return false
}

// Active implements EdgeProcess.
func (f *Faulty) Active(t, d, i, j int) bool {
	if i > j {
		i, j = j, i
	}
	return !f.Down(t, i, j) && f.base.Active(t, d, i, j)
}
