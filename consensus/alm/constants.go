package alm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus/problem"
	"github.com/consim/consim/graph"
)

// ConstantsFor returns the Constants of the consensus problem of the
// agents' objectives over g: L_f = max_i L_i / N, ||E[W]|| =
// sqrt(lambda_max(L_{p^2})) and the second moment
// ||E[W(zeta)^T W(zeta)]|| = lambda_max(L_p). SigmaBar is left zero.
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
	if len(g.Edges) == 0 {
		return Constants{Lf: lmax / float64(g.N)}, nil
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
