// Package objective holds the local problems of decentralized optimization:
// agent i's objective f_i with its exact and stochastic gradient oracles,
// the common feasible box X, and the centralized optimum of
// f(x) = (1/N) sum_i f_i(x) so that the optimality gap is measured.
//
// objective owns the primitives every problem family builds on: the
// generalized linear models f_i of given rows (least squares, logistic,
// Cauchy regression; FromShards, LocalFromShard) with their prox, the
// quadratic test objectives, and the central solvers of the optimum. It
// generates no data and reads no files: the families under problems/ do
// (problems/regression draws the rows of the generated regression
// problems from the run seed). objective imports graph (for the common
// randomness of the multistart solve) and gonum only; it must not import
// consensus, problems, node, coordinator, scenarios or cmd.
package objective

import (
	"math"
	"math/rand/v2"
)

// Local is agent i's smooth objective f_i : R^n -> R with its oracles.
type Local interface {
	// Dim is n, the length of x.
	Dim() int
	// Value returns f_i(x).
	Value(x []float64) float64
	// Grad writes grad f_i(x) into g.
	Grad(x, g []float64)
	// StochGrad writes an unbiased estimate of grad f_i(x) into g, using
	// rng for every random choice, and returns the number of component
	// samples it used.
	StochGrad(x, g []float64, rng *rand.Rand) int
	// Smoothness returns L_i, a Lipschitz constant of grad f_i.
	Smoothness() float64
}

// Box is the feasible set X = [Lo, Hi]^n shared by all agents. Infinite
// bounds are allowed.
type Box struct{ Lo, Hi float64 }

// BoxOf returns [lo, hi]^n, or R^n when lo = hi = 0 (the zero value of a
// pair of bounds).
func BoxOf(lo, hi float64) Box {
	if lo == 0 && hi == 0 {
		return Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	}
	return Box{Lo: lo, Hi: hi}
}

// bounded reports whether both sides of the box are finite.
func (b Box) bounded() bool { return !math.IsInf(b.Lo, 0) && !math.IsInf(b.Hi, 0) }

// Project writes proj_X(x) into x.
func (b Box) Project(x []float64) {
	for k, v := range x {
		x[k] = math.Min(math.Max(v, b.Lo), b.Hi)
	}
}

// Problem is min_{x in X} f(x) = (1/N) sum_i f_i(x) with its known optimum.
type Problem struct {
	Name   string
	Locals []Local
	Box    Box
	// XStar is a minimizer of f over X and FStar = f(XStar). For a
	// nonconvex problem they are the best point a centralized multistart
	// solve found, and Convex is false.
	XStar  []float64
	FStar  float64
	Convex bool
}

// N is the number of agents.
func (p *Problem) N() int { return len(p.Locals) }

// Dim is n.
func (p *Problem) Dim() int { return p.Locals[0].Dim() }

// Value returns f(x) = (1/N) sum_i f_i(x).
func (p *Problem) Value(x []float64) float64 {
	var s float64
	for _, l := range p.Locals {
		s += l.Value(x)
	}
	return s / float64(len(p.Locals))
}

// Smoothness returns max_i L_i, a Lipschitz constant of grad f_i for
// every agent and hence of grad f.
func (p *Problem) Smoothness() float64 {
	l := math.Inf(-1)
	for _, f := range p.Locals {
		l = math.Max(l, f.Smoothness())
	}
	return l
}

// FullGrad writes grad f(x) = (1/N) sum_i grad f_i(x) into g. It
// allocates one n-vector of scratch per call.
func (p *Problem) FullGrad(x, g []float64) {
	tmp := make([]float64, len(g))
	fullGrad(p.Locals, x, g, tmp)
}

// fullGrad writes (1/N) sum_i grad f_i(x) into g using tmp as scratch.
func fullGrad[L Local](locals []L, x, g, tmp []float64) {
	clear(g)
	for _, f := range locals {
		f.Grad(x, tmp)
		for k, v := range tmp {
			g[k] += v
		}
	}
	inv := 1 / float64(len(locals))
	for k := range g {
		g[k] *= inv
	}
}
