// Package objective holds the local problems of decentralized optimization:
// agent i's objective f_i with its exact and stochastic gradient oracles,
// the common feasible box X, and the centralized optimum of
// f(x) = (1/N) sum_i f_i(x) so that the optimality gap is measured.
//
// Data are generated deterministically from the run seed and the agent id,
// so every process of a run rebuilds the same problem without any data
// crossing the bus. problem imports graph (for common randomness) and
// gonum only.
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
