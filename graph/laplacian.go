package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Weight assigns a weight w_e to an edge; it selects the Laplacian L_w.
type Weight func(Edge) float64

// Unit is the weight w_e = 1: L_1 is the combinatorial Laplacian.
func Unit(Edge) float64 { return 1 }

// ByP is the weight w_e = p_e: L_p = E[W(zeta)^T W(zeta)], the expected
// Laplacian of one draw.
func ByP(e Edge) float64 { return e.P }

// ByP2 is the weight w_e = p_e^2: L_{p^2} = E[W]^T E[W].
func ByP2(e Edge) float64 { return e.P * e.P }

// Laplacian returns the N x N weighted Laplacian
//
//	L_w = sum_{e = {i,j} in E} w_e (e_i - e_j)(e_i - e_j)^T,
//
// i.e. L_ii = sum_{j ~ i} w_ij and L_ij = -w_ij. A nil weight means Unit.
func (g *Graph) Laplacian(weight Weight) *mat.SymDense {
	if weight == nil {
		weight = Unit
	}
	l := mat.NewSymDense(g.N, nil)
	for _, e := range g.Edges {
		w := weight(e)
		l.SetSym(e.I, e.I, l.At(e.I, e.I)+w)
		l.SetSym(e.J, e.J, l.At(e.J, e.J)+w)
		l.SetSym(e.I, e.J, l.At(e.I, e.J)-w)
	}
	return l
}

// Spectrum returns the eigenvalues lambda_1 <= ... <= lambda_N of L_w (nil
// weight means Unit), computed by SymEigenvalues, so the same bits on every
// architecture. The error is always nil; it is kept for callers that
// handle a solver failure.
func (g *Graph) Spectrum(weight Weight) ([]float64, error) {
	return SymEigenvalues(g.Laplacian(weight)), nil
}

// Lambda2 returns the algebraic connectivity lambda_2(L_w), the second
// smallest Laplacian eigenvalue; it is positive iff the graph is
// connected (for positive weights). A single agent gives 0. Graphs of
// more than DenseSpectrumMaxN agents take it from Lanczos
// (LanczosLambda2).
func (g *Graph) Lambda2(weight Weight) (float64, error) {
	if g.N < 2 {
		return 0, nil
	}
	if g.N > DenseSpectrumMaxN {
		return clampZero(g.LanczosLambda2(weight).Value), nil
	}
	l, err := SymEigenvalue(g.Laplacian(weight), 1)
	if err != nil {
		return 0, err
	}
	return clampZero(l), nil
}

// LambdaMax returns lambda_N(L_w), the largest Laplacian eigenvalue: by
// the dense eigensolver for at most DenseSpectrumMaxN agents, else by
// Lanczos on the sparse Laplacian (LanczosLambdaMax, relative residual
// LanczosTol).
func (g *Graph) LambdaMax(weight Weight) (float64, error) {
	if g.N > DenseSpectrumMaxN {
		return g.LanczosLambdaMax(weight).Value, nil
	}
	l, err := SymEigenvalue(g.Laplacian(weight), g.N-1)
	if err != nil {
		return 0, err
	}
	return clampZero(l), nil
}

// NormA returns ||E[A]||_2 = ||E[W]||_2 = sqrt(lambda_max(L_{p^2})), since
// E[W]^T E[W] = L_{p^2} and the Kronecker factor I_n leaves the norm
// unchanged.
func (g *Graph) NormA() (float64, error) {
	l, err := g.LambdaMax(ByP2)
	if err != nil {
		return 0, fmt.Errorf("graph: ||E[W]||: %w", err)
	}
	return math.Sqrt(l), nil
}

// SigmaMinPlus returns sqrt(lambda_2(L_{p^2})): for a connected graph the
// smallest nonzero singular value sigma_min+(E[W]) of E[W] (and of E[A]).
// For a disconnected graph lambda_2 = 0 and so is the result.
func (g *Graph) SigmaMinPlus() (float64, error) {
	l, err := g.Lambda2(ByP2)
	if err != nil {
		return 0, fmt.Errorf("graph: sigma_min+(E[W]): %w", err)
	}
	return math.Sqrt(l), nil
}

// clampZero maps the round-off negatives of a positive semidefinite
// spectrum to 0.
func clampZero(x float64) float64 { return max(x, 0) }
