package graph

// Combinatorial properties of a Digraph: of the arcs that can ever be
// present (p_ij > 0), i.e. of the support of E[A].

// StronglyConnected reports whether every agent can reach every other
// along arcs: a breadth-first search from agent 0 reaches every agent
// along the arcs and along the reversed arcs. A single agent is strongly
// connected.
func (d *Digraph) StronglyConnected() bool {
	for _, adj := range [][][]int{d.out, d.in} {
		for _, h := range bfs(adj, 0, nil) {
			if h < 0 {
				return false
			}
		}
	}
	return true
}

// Diameter returns the largest directed hop distance max_{i,j} d(i -> j),
// found by a breadth-first search from every agent, or -1 if the digraph
// is not strongly connected.
func (d *Digraph) Diameter() int {
	diam := 0
	dist := make([]int, d.N)
	for s := range d.N {
		dist = bfs(d.out, s, dist)
		for _, h := range dist {
			if h < 0 {
				return -1
			}
			diam = max(diam, h)
		}
	}
	return diam
}

// bfs returns the hop distances from s along adj (-1 for unreachable
// agents), reusing dist when it has length len(adj).
func bfs(adj [][]int, s int, dist []int) []int {
	if len(dist) != len(adj) {
		dist = make([]int, len(adj))
	}
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	queue := make([]int, 1, len(adj))
	queue[0] = s
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range adj[i] {
			if dist[j] < 0 {
				dist[j] = dist[i] + 1
				queue = append(queue, j)
			}
		}
	}
	return dist
}
