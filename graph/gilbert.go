package graph

import (
	"fmt"
	"sync"
)

// checkpointEvery is the spacing, in rounds, of the chain states a
// GilbertElliott keeps for random access to earlier rounds.
const checkpointEvery = 1024

// GilbertElliott is the bursty-link edge process of Gilbert and Elliott:
// every edge {i, j} carries its own two-state Markov chain S_t in {good,
// bad}, advanced once per round, and the round's draws are independent
// Bernoulli trials given the state.
//
// Chain. P(S_t = bad | S_{t-1} = good) = p_gb and P(S_t = good | S_{t-1} =
// bad) = p_bg. S_0 is drawn from the stationary distribution
//
//	pi_bad = p_gb / (p_gb + p_bg),  pi_good = 1 - pi_bad,
//
// so the chain is stationary from round 0. A bad spell lasts a geometric
// number of rounds with mean 1/p_bg (a good spell: mean 1/p_gb). The
// uniforms driving the chain are U(seed, t, StreamChain, i, j), so both
// endpoints of an edge compute the same path without talking.
//
// Presence. Given S_t, draw d of round t has the edge present iff
// U(seed, t, d, i, j) < p_good (S_t = good) or < p_bad (S_t = bad), where
// p_good is p_ij of G and p_bad is PBad. The stationary presence
// probability is
//
//	P(edge present) = pi_good p_ij + pi_bad p_bad,
//
// which is the entry of E[W] (see StationaryP and Expected). Draws of the
// same round are independent given S_t but correlated through it; rounds
// are correlated with lag-k correlation (1 - p_gb - p_bg)^k of the state.
//
// Cost. Every edge keeps a cache of its chain: the state of the latest
// round asked for (the head), the states of the 63 rounds before it, and
// one checkpoint state every 1024 rounds. A query for round t costs
//   - O(t - head) hashes when t is past the head (amortised O(1) per round
//     when the rounds are asked for in order, as agents do),
//   - O(1) when t is within 64 rounds behind the head (endpoints that lag
//     each other by a few rounds),
//   - at most 1023 hashes for any earlier round (from the nearest
//     checkpoint; the head does not move).
//
// Memory is about 48 bytes plus one bit per 1024 rounds per edge. A per-edge
// mutex makes it safe for concurrent use; the answers are a pure function
// of (seed, parameters, t, d, i, j) whatever the order of the queries.
type GilbertElliott struct {
	g          *Graph
	seed       uint64
	pgb, pbg   float64
	pbad       float64
	piBad      float64
	chains     []chain
	checkEvery int
}

// chain is the cached path of one edge's Markov chain.
type chain struct {
	mu     sync.Mutex
	head   int      // latest round whose state is known; -1 before any query
	window uint64   // bit b: S_{head-b} is bad, b < 64
	checks []uint64 // bit c: S_{c*checkEvery} is bad, for c*checkEvery <= head
}

// NewGilbertElliott returns the Gilbert-Elliott process on the edges of g
// with per-round transition probabilities pgb (good -> bad) and pbg (bad ->
// good), presence probability p_ij of g in the good state and pbad in the
// bad state. It requires pgb in [0, 1], pbg in (0, 1] and pbad in [0, 1].
func NewGilbertElliott(g *Graph, seed uint64, pgb, pbg, pbad float64) (*GilbertElliott, error) {
	if g == nil {
		return nil, fmt.Errorf("graph: Gilbert-Elliott process: graph is nil")
	}
	if !(pgb >= 0 && pgb <= 1) {
		return nil, fmt.Errorf("graph: Gilbert-Elliott process: p_gb = %v must be in [0, 1]", pgb)
	}
	if !(pbg > 0 && pbg <= 1) {
		return nil, fmt.Errorf("graph: Gilbert-Elliott process: p_bg = %v must be in (0, 1]", pbg)
	}
	if !(pbad >= 0 && pbad <= 1) {
		return nil, fmt.Errorf("graph: Gilbert-Elliott process: p_bad = %v must be in [0, 1]", pbad)
	}
	ge := &GilbertElliott{
		g: g, seed: seed, pgb: pgb, pbg: pbg, pbad: pbad,
		piBad:      pgb / (pgb + pbg),
		chains:     make([]chain, len(g.Edges)),
		checkEvery: checkpointEvery,
	}
	for k := range ge.chains {
		ge.chains[k].head = -1
	}
	return ge, nil
}

// PiBad is the stationary probability pi_bad = p_gb / (p_gb + p_bg) that an
// edge's chain is in the bad state.
func (ge *GilbertElliott) PiBad() float64 { return ge.piBad }

// MeanBurst is the mean length 1/p_bg, in rounds, of a bad spell.
func (ge *GilbertElliott) MeanBurst() float64 { return 1 / ge.pbg }

// StationaryP returns the stationary presence probability of the edge
// {i, j}: pi_good p_ij + pi_bad p_bad, or 0 if {i, j} is not an edge.
func (ge *GilbertElliott) StationaryP(i, j int) float64 {
	p := ge.g.P(i, j)
	if p == 0 {
		return 0
	}
	return float64((1-ge.piBad)*p) + float64(ge.piBad*ge.pbad)
}

// Expected returns a copy of the graph with p_ij replaced by the
// stationary presence probability StationaryP(i, j): the graph whose
// expected incidence is E[W] of this process. It fails if some stationary
// probability is 0 (p_good = p_bad = 0 cannot happen for a graph, whose
// p_ij > 0, unless pi_good = 0, which p_bg > 0 rules out).
func (ge *GilbertElliott) Expected() (*Graph, error) {
	return ge.g.WithEdgeP(ge.StationaryP)
}

// Active implements EdgeProcess: it reports whether {i, j} (either order)
// is present in draw d of round t. Pairs that are not edges and negative
// rounds are never present.
func (ge *GilbertElliott) Active(t, d, i, j int) bool {
	if i > j {
		i, j = j, i
	}
	k, ok := ge.g.EdgeIndex(i, j)
	if !ok || t < 0 {
		return false
	}
	return ge.active(t, d, k)
}

// ActiveK is Active for edge k of the graph (resolved once with
// Graph.EdgeIndex). It is false for k outside [0, |E|) or t < 0.
func (ge *GilbertElliott) ActiveK(t, d, k int) bool {
	if k < 0 || k >= len(ge.chains) || t < 0 {
		return false
	}
	return ge.active(t, d, k)
}

// Good reports whether the chain of {i, j} is in the good state in round
// t. It is false for a pair that is not an edge or t < 0.
func (ge *GilbertElliott) Good(t, i, j int) bool {
	k, ok := ge.g.EdgeIndex(i, j)
	if !ok || t < 0 {
		return false
	}
	return !ge.bad(t, k)
}

func (ge *GilbertElliott) active(t, d, k int) bool {
	e := &ge.g.Edges[k]
	p := e.P
	if ge.bad(t, k) {
		p = ge.pbad
	}
	if p >= 1 {
		return true
	}
	return Uniform(ge.seed, uint64(t), uint64(d), uint64(e.I), uint64(e.J)) < p
}

// step returns S_t given S_{t-1} = prevBad for edge e.
func (ge *GilbertElliott) step(t int, e *Edge, prevBad bool) bool {
	u := StreamChain.Uniform(ge.seed, uint64(t), uint64(e.I), uint64(e.J))
	if prevBad {
		return u >= ge.pbg
	}
	return u < ge.pgb
}

// initial returns S_0 of edge e, drawn from the stationary distribution.
func (ge *GilbertElliott) initial(e *Edge) bool {
	return StreamChain.Uniform(ge.seed, 0, uint64(e.I), uint64(e.J)) < ge.piBad
}

// bad returns whether S_t = bad for edge k, using and extending the
// edge's cache (see the cost model on GilbertElliott).
func (ge *GilbertElliott) bad(t, k int) bool {
	c := &ge.chains[k]
	e := &ge.g.Edges[k]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head < 0 {
		c.head = 0
		c.window = 0
		if ge.initial(e) {
			c.window = 1
		}
		c.checks = append(c.checks[:0], c.window)
	}
	switch {
	case t > c.head:
		s := c.window&1 == 1
		for r := c.head + 1; r <= t; r++ {
			s = ge.step(r, e, s)
			c.window <<= 1
			if s {
				c.window |= 1
			}
			if r%ge.checkEvery == 0 {
				ge.setCheck(c, r/ge.checkEvery, s)
			}
		}
		c.head = t
		return s
	case c.head-t < 64:
		return c.window>>(c.head-t)&1 == 1
	}
	// t is well behind the head: replay from the checkpoint at or before t.
	cp := t / ge.checkEvery
	s := c.checks[cp/64]>>(cp%64)&1 == 1
	for r := cp*ge.checkEvery + 1; r <= t; r++ {
		s = ge.step(r, e, s)
	}
	return s
}

// setCheck records S_{cp*checkEvery} = s in c's checkpoint bitset.
func (ge *GilbertElliott) setCheck(c *chain, cp int, s bool) {
	for len(c.checks) <= cp/64 {
		c.checks = append(c.checks, 0)
	}
	if s {
		c.checks[cp/64] |= 1 << (cp % 64)
	}
}
