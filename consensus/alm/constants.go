package alm

import (
	"fmt"
	"math"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// ConstantsFor returns the Constants of the consensus problem of the
// agents' objectives over g: L_f = max_i L_i / N, ||E[W]|| =
// sqrt(lambda_max(L_{p^2})) and the second moment
// ||E[W(zeta)^T W(zeta)]|| = lambda_max(L_p). SigmaBar is left zero.
// Above graph.DenseSpectrumMaxN agents the eigenvalues come from Lanczos,
// and when every edge has the same p from one: lambda_max(L_1), scaled by
// p^2 and p.
func ConstantsFor(g *graph.Graph, locals []objective.Local) (Constants, error) {
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
	if len(g.Edges) == 0 {
		return Constants{Lf: lmax / float64(g.N)}, nil
	}
	if p, ok := uniformP(g); ok && g.N > graph.DenseSpectrumMaxN {
		// L_{p^2} = p^2 L_1 and L_p = p L_1: one sparse eigenvalue.
		l1, err := g.LambdaMax(graph.Unit)
		if err != nil {
			return Constants{}, fmt.Errorf("alm: constants: %w", err)
		}
		return Constants{Lf: lmax / float64(g.N), NormA: math.Sqrt(float64(float64(p*p) * l1)), SecondMoment: float64(p * l1)}, nil
	}
	na, err := g.NormA()
	if err != nil {
		return Constants{}, fmt.Errorf("alm: constants: %w", err)
	}
	m2, err := g.LambdaMax(graph.ByP)
	if err != nil {
		return Constants{}, fmt.Errorf("alm: constants: %w", err)
	}
	return Constants{Lf: lmax / float64(g.N), NormA: na, SecondMoment: m2}, nil
}

// uniformP returns p when every edge of g has the same presence
// probability p.
func uniformP(g *graph.Graph) (float64, bool) {
	if len(g.Edges) == 0 {
		return 0, false
	}
	p := g.Edges[0].P
	for _, e := range g.Edges {
		if e.P != p {
			return 0, false
		}
	}
	return p, true
}
