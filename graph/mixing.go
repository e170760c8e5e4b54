package graph

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Mixing matrices over the edges present in a draw.
//
// Let zeta be a draw of the edge process and E(zeta) the set of edges of G
// present in it, with d_i(zeta) = |{j : {i,j} in E(zeta)}| the realized
// degree of agent i. A mixing rule assigns a weight w_ij(zeta) > 0 to every
// present edge and builds the symmetric gossip matrix
//
//	W(zeta)_ij = w_ij(zeta)                     {i,j} in E(zeta)
//	W(zeta)_ii = 1 - sum_{j : {i,j} in E(zeta)} w_ij(zeta)
//	W(zeta)_ij = 0                              otherwise.
//
// Its rows and columns sum to 1 (W 1 = 1, 1^T W = 1^T), so gossip
// x <- W x keeps the average and, when every W_ii >= 0, contracts the
// disagreement. The two rules:
//
//   - Metropolis-Hastings (the default): w_ij = 1/(1 + max(d_i(zeta),
//     d_j(zeta))). Every W_ii >= 1/(1 + d_i) > 0 whatever the draw, and no
//     parameter is needed. Agent i needs the realized degrees of its
//     present neighbours; since the edge process is common knowledge
//     (EdgeProcess.Active answers for every edge of G, from the run seed),
//     i computes d_j(zeta) from the presence of j's edges without any
//     message.
//   - Uniform: w_ij = alpha on every present edge, W(zeta) = I - alpha
//     L(zeta) with L(zeta) the Laplacian of the present edges. It needs
//     0 < alpha < 1/d_max, d_max the largest degree of G, so that
//     W_ii >= 1 - alpha d_max > 0 in every draw.
//
// Row and Matrix compute the same numbers in the same order: the diagonal
// is 1 minus the present weights summed in ascending neighbour order, so an
// agent's row is bit-identical to the row of its matrix-form reference.

// Mixing rules of Mixing.Rule.
const (
	// MixMetropolis selects w_ij = 1/(1 + max(d_i(zeta), d_j(zeta))).
	MixMetropolis = "metropolis"
	// MixUniform selects w_ij = Mixing.Alpha on every present edge.
	MixUniform = "uniform"
)

// Mixing selects the weights w_ij(zeta) of the gossip matrix W(zeta). The
// zero value is Metropolis-Hastings.
type Mixing struct {
	// Rule is MixMetropolis (also when empty) or MixUniform.
	Rule string `yaml:"rule" doc:"mixing weights on the round's present edges: metropolis|uniform"`
	// Alpha is the edge weight of MixUniform, in (0, 1/d_max) for the
	// largest degree d_max of the graph; it must be 0 under MixMetropolis.
	Alpha float64 `yaml:"alpha,omitempty" doc:"uniform only: edge weight alpha in (0, 1/d_max)"`
}

// Validate checks the rule and, for MixUniform, that alpha is in (0, 1)
// (the graph-independent part of 0 < alpha < 1/d_max; see ValidateFor).
func (m Mixing) Validate() error {
	switch m.Rule {
	case "", MixMetropolis:
		if m.Alpha != 0 {
			return fmt.Errorf("mixing: alpha = %v is only used by rule %q: leave it out for %q", m.Alpha, MixUniform, MixMetropolis)
		}
	case MixUniform:
		if !(m.Alpha > 0 && m.Alpha < 1) {
			return fmt.Errorf("mixing: alpha = %v: rule %q needs 0 < alpha < 1/d_max", m.Alpha, MixUniform)
		}
	default:
		return fmt.Errorf("mixing: rule %q: must be %q or %q", m.Rule, MixMetropolis, MixUniform)
	}
	return nil
}

// ValidateFor checks m on graph g: Validate and, for MixUniform,
// alpha < 1/d_max(g).
func (m Mixing) ValidateFor(g *Graph) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.Rule == MixUniform && g.MaxDegree() > 0 && m.Alpha*float64(g.MaxDegree()) >= 1 {
		return fmt.Errorf("mixing: alpha = %v: rule %q needs alpha < 1/d_max = 1/%d on this graph", m.Alpha, MixUniform, g.MaxDegree())
	}
	return nil
}

// Weight returns w_ij of a present edge {i, j} whose endpoints have
// realized degrees di and dj: 1/(1 + max(di, dj)) for Metropolis-Hastings,
// alpha for the uniform rule.
func (m Mixing) Weight(di, dj int) float64 {
	if m.Rule == MixUniform {
		return m.Alpha
	}
	return 1 / float64(1+max(di, dj))
}

// PresentDegree returns d_i(zeta), the number of edges of g at agent i
// present in draw d of round t.
func PresentDegree(g *Graph, proc EdgeProcess, t, d, i int) int {
	var n int
	for _, j := range g.nbrs[i] {
		if proc.Active(t, d, min(i, j), max(i, j)) {
			n++
		}
	}
	return n
}

// Row computes agent i's row of W(zeta) for draw d of round t from the
// common randomness alone: w[k] = w_ij(zeta) for the k-th neighbour j of
// g.Neighbors(i), 0 when {i, j} is absent, and the returned value is
// W_ii = 1 - sum_k w[k], summed in ascending k. w must have length
// g.Degree(i). Metropolis-Hastings evaluates the presence of the edges of
// i's present neighbours to get their realized degrees.
func (m Mixing) Row(g *Graph, proc EdgeProcess, t, d, i int, w []float64) float64 {
	nb := g.nbrs[i]
	di := 0
	for k, j := range nb {
		w[k] = 0
		if proc.Active(t, d, min(i, j), max(i, j)) {
			w[k] = 1 // marks presence until the weight is known
			di++
		}
	}
	wii := 1.0
	for k, j := range nb {
		if w[k] == 0 {
			continue
		}
		dj := 0
		if m.Rule != MixUniform {
			dj = PresentDegree(g, proc, t, d, j)
		}
		w[k] = m.Weight(di, dj)
		wii -= w[k]
	}
	return wii
}

// Matrix returns W(zeta) of draw d of round t, N x N.
func (m Mixing) Matrix(g *Graph, proc EdgeProcess, t, d int) *mat.SymDense {
	present := make([]bool, len(g.Edges))
	for k, e := range g.Edges {
		present[k] = proc.Active(t, d, e.I, e.J)
	}
	return m.MatrixOf(g, present)
}

// MatrixOf returns W(zeta) for the draw whose present edges are those k
// with present[k] (edge indices of g).
func (m Mixing) MatrixOf(g *Graph, present []bool) *mat.SymDense {
	deg := make([]int, g.N)
	for k, e := range g.Edges {
		if present[k] {
			deg[e.I]++
			deg[e.J]++
		}
	}
	w := mat.NewSymDense(g.N, nil)
	for i := range g.N {
		wii := 1.0
		for _, j := range g.nbrs[i] {
			k := g.index[[2]int{min(i, j), max(i, j)}]
			if !present[k] {
				continue
			}
			wij := m.Weight(deg[i], deg[j])
			wii -= wij
			w.SetSym(i, j, wij)
		}
		w.SetSym(i, i, wii)
	}
	return w
}

// edgeWeights returns v_e = delta_e(zeta) w_e(zeta) for every edge e of g
// in the draw with the given present edges: the weight of the present
// edges and 0 for the absent ones, so that W(zeta) = I - sum_e v_e L_e
// with L_e = (e_i - e_j)(e_i - e_j)^T.
func (m Mixing) edgeWeights(g *Graph, present []bool, deg []int, v []float64) {
	clear(deg)
	for k, e := range g.Edges {
		if present[k] {
			deg[e.I]++
			deg[e.J]++
		}
	}
	for k, e := range g.Edges {
		v[k] = 0
		if present[k] {
			v[k] = m.Weight(deg[e.I], deg[e.J])
		}
	}
}
