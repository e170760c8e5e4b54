package alm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/problem"
	"github.com/consim/consim/graph"
)

// ConstantsFor returns the Constants of the consensus problem of the
// agents' objectives over g: L_f = max_i L_i / N and ||E[W]||. SigmaBar is
// left zero.
func ConstantsFor(g *graph.Graph, locals []problem.Local) (Constants, error) {
	if g == nil {
		return Constants{}, fmt.Errorf("alm: constants: nil graph")
	}
	if len(locals) != g.N {
		return Constants{}, fmt.Errorf("alm: constants: %d local objectives for %d agents", len(locals), g.N)
	}
	var lmax float64
	for i, l := range locals {
		if l == nil {
			return Constants{}, fmt.Errorf("alm: constants: agent %d has no objective", i)
		}
		lmax = math.Max(lmax, l.Smoothness())
	}
	na, err := normEW(g)
	if err != nil {
		return Constants{}, fmt.Errorf("alm: constants: %w", err)
	}
	return Constants{Lf: lmax / float64(g.N), NormA: na}, nil
}

// normEW returns ||E[W]||_2 = sqrt(lambda_max(L_p2)), where L_p2 is the
// graph Laplacian with edge weights p_ij^2: E[W]^T E[W] = L_p2 because row
// {i,j} of E[W] is p_ij (e_i - e_j). It is 0 for a graph without edges.
func normEW(g *graph.Graph) (float64, error) {
	if len(g.Edges) == 0 {
		return 0, nil
	}
	l := mat.NewSymDense(g.N, nil)
	for _, e := range g.Edges {
		w := e.P * e.P
		l.SetSym(e.I, e.I, l.At(e.I, e.I)+w)
		l.SetSym(e.J, e.J, l.At(e.J, e.J)+w)
		l.SetSym(e.I, e.J, l.At(e.I, e.J)-w)
	}
	var es mat.EigenSym
	if !es.Factorize(l, false) {
		return 0, fmt.Errorf("eigen-decomposition of the p^2-weighted Laplacian failed")
	}
	vals := es.Values(nil)
	return math.Sqrt(math.Max(0, vals[len(vals)-1])), nil
}
