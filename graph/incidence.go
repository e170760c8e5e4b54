package graph

import "gonum.org/v1/gonum/mat"

// Incidence returns the realised edge-agent incidence matrix W(zeta) of
// round t and draw d under proc: an |E| x N matrix whose row k, for the
// edge e_k = {i, j}, i < j, is e_i - e_j (+1 at the lower index, -1 at the
// higher) if proc reports the edge active and zero otherwise. Row k of W
// is row k of Graph.Edges. For a graph without edges it returns an empty
// matrix (Dims 0, 0).
func (g *Graph) Incidence(proc EdgeProcess, t, d int) *mat.Dense {
	if len(g.Edges) == 0 {
		return &mat.Dense{}
	}
	w := mat.NewDense(len(g.Edges), g.N, nil)
	for k, e := range g.Edges {
		if proc.Active(t, d, e.I, e.J) {
			w.Set(k, e.I, 1)
			w.Set(k, e.J, -1)
		}
	}
	return w
}

// ExpectedIncidence returns E[W]: the |E| x N matrix whose row k, for
// e_k = {i, j}, i < j, is p_ij (e_i - e_j). For a graph without edges it
// returns an empty matrix (Dims 0, 0).
func (g *Graph) ExpectedIncidence() *mat.Dense {
	if len(g.Edges) == 0 {
		return &mat.Dense{}
	}
	w := mat.NewDense(len(g.Edges), g.N, nil)
	for k, e := range g.Edges {
		w.Set(k, e.I, e.P)
		w.Set(k, e.J, -e.P)
	}
	return w
}

// KronIdentity returns W kron I_n, the constraint matrix A(zeta) of the
// decentralized problem with blocks x_i in R^n: entry (k n + a, i n + b)
// equals W_ki if a = b and 0 otherwise. An empty W or n < 1 gives an empty
// matrix (Dims 0, 0).
func KronIdentity(w mat.Matrix, n int) *mat.Dense {
	r, c := w.Dims()
	if r == 0 || c == 0 || n < 1 {
		return &mat.Dense{}
	}
	a := mat.NewDense(r*n, c*n, nil)
	for k := 0; k < r; k++ {
		for i := 0; i < c; i++ {
			v := w.At(k, i)
			if v == 0 {
				continue
			}
			for b := 0; b < n; b++ {
				a.Set(k*n+b, i*n+b, v)
			}
		}
	}
	return a
}
