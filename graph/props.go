package graph

// Combinatorial properties. Every edge of a Graph has p_ij > 0 (New
// enforces it), so these are properties of the graph of pairs that can
// ever communicate, i.e. of the support of E[W].

// NumEdges returns |E|, the number of pairs with p_ij > 0: the number of
// rows of W.
func (g *Graph) NumEdges() int { return len(g.Edges) }

// Degree returns the number of neighbours of agent i, i in [0, N).
func (g *Graph) Degree(i int) int { return len(g.nbrs[i]) }

// MaxDegree returns max_i deg(i).
func (g *Graph) MaxDegree() int {
	m := 0
	for i := range g.nbrs {
		m = max(m, len(g.nbrs[i]))
	}
	return m
}

// MinDegree returns min_i deg(i).
func (g *Graph) MinDegree() int {
	m := len(g.nbrs[0])
	for i := range g.nbrs {
		m = min(m, len(g.nbrs[i]))
	}
	return m
}

// Connected reports whether every agent can reach every other along edges
// with p_ij > 0. A single agent is connected.
func (g *Graph) Connected() bool {
	dist := g.hops(0, nil)
	for _, d := range dist {
		if d < 0 {
			return false
		}
	}
	return true
}

// Diameter returns the largest hop distance max_{i,j} d(i, j), found by a
// breadth-first search from every agent, or -1 if the graph is not
// connected.
func (g *Graph) Diameter() int {
	diam := 0
	dist := make([]int, g.N)
	for s := 0; s < g.N; s++ {
		dist = g.hops(s, dist)
		for _, d := range dist {
			if d < 0 {
				return -1
			}
			diam = max(diam, d)
		}
	}
	return diam
}

// hops returns the hop distances from agent s (-1 for unreachable agents),
// reusing dist when it has length N.
func (g *Graph) hops(s int, dist []int) []int {
	if len(dist) != g.N {
		dist = make([]int, g.N)
	}
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	queue := make([]int, 1, g.N)
	queue[0] = s
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range g.nbrs[i] {
			if dist[j] < 0 {
				dist[j] = dist[i] + 1
				queue = append(queue, j)
			}
		}
	}
	return dist
}
