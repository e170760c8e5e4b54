// Package regression is the family of regression problems
// min_{x in X} f(x) = (1/N) sum_i f_i(x), f_i a generalized linear model
// of agent i's rows: least squares, logistic regression and the nonconvex
// Cauchy regression, their rows generated from the run seed (Params, New,
// NewLocal; generate.go states the model) or read from a user's data file
// (DataSource). It owns the problem block of the three kinds, the
// generator, the instances the registry builds, their registration and
// their export;
// the local objectives and the optimum solvers are package objective's.
//
// regression may import objective, graph, dataset, consensus/registry and
// problems/datafile; it must not import an algorithm package
// (consensus/<algorithm>), node, coordinator, scenarios or cmd.
package regression

import (
	"fmt"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// LeastSquares describes least_squares: f_i(x) = (1/m) sum_k (a_k^T x - b_k)^2 / 2
// + (lambda/2)||x||^2 over agent i's generated rows.
func LeastSquares() registry.Problem {
	return regressionProblem(objective.KindLeastSquares, "least squares with a ridge term, data generated per agent from the seed or read from a file")
}

// Logistic describes logistic: the logistic loss of labels in {-1, +1}
// with a ridge term.
func Logistic() registry.Problem {
	return regressionProblem(objective.KindLogistic, "logistic regression with a ridge term, data generated per agent from the seed or read from a file")
}

// Nonconvex describes nonconvex_regression: the Cauchy loss with the
// saturating regulariser lambda sum_j x_j^2/(1+x_j^2).
func Nonconvex() registry.Problem {
	return regressionProblem(objective.KindNonconvex, "nonconvex Cauchy regression with a saturating regulariser (optimum: best of a multistart)")
}

func regressionProblem(kind, summary string) registry.Problem {
	return registry.Problem{
		Kind:    kind,
		Summary: summary,
		New:     func() registry.Params { return DefaultParams(kind) },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			r := p.(*Params)
			if r.Data != nil {
				return buildFromData(r, env)
			}
			return buildGenerated(r, env)
		},
		Offers: offers(kind),
	}
}

// offers are the capabilities of kind: local objectives, and their exact
// prox for least squares.
func offers(kind string) []string {
	if kind == objective.KindLeastSquares {
		return []string{registry.CapLocals, registry.CapProx}
	}
	return []string{registry.CapLocals}
}

// generated is a regression instance whose data come from the seed.
type generated struct {
	p      Params
	env    registry.ProblemEnv
	locals []objective.Local
}

func buildGenerated(r *Params, env registry.ProblemEnv) (*generated, error) {
	p := *r
	if err := p.check(env.N); err != nil {
		return nil, err
	}
	g := &generated{p: p, env: env, locals: make([]objective.Local, env.N)}
	for i := range g.locals {
		l, err := NewLocal(p, env.N, env.Seed, i)
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", i, err)
		}
		g.locals[i] = l
	}
	return g, nil
}

func (g *generated) Dim() int                    { return g.p.Dim }
func (g *generated) Local(i int) objective.Local { return g.locals[i] }
func (g *generated) Box() objective.Box          { return g.p.box() }
func (g *generated) Central() (*objective.Problem, error) {
	return New(g.p, g.env.N, g.env.Seed)
}
