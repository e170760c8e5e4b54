package qcqp

import (
	"fmt"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Cap is the capability of the problems that are black-box constrained
// problems min f(x) s.t. h(x) <= 0 over a box (Provider).
const Cap = "qcqp"

// Provider is the capability Cap: the NC-QCQP of the paper's experiment,
// whose values the oracle workers evaluate and whose exact gradients the
// measurement uses. Central fails with registry.ErrNoCentral: the
// algorithm that runs on it measures itself (registry.Evaluator).
type Provider interface {
	registry.Instance
	QCQP() *QCQP
}

// Params is the problem block of kind qcqp.
type Params struct {
	N int `yaml:"n" doc:"variables n >= 1"`
	M int `yaml:"m" doc:"constraints m >= 1 (the paper's Table 2: 1)"`
}

// DefaultParams returns n = 50, m = 1.
func DefaultParams() *Params { return &Params{N: 50, M: 1} }

// Validate checks n, m >= 1.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if p.N < 1 {
		errs.Add("n", "must be >= 1, got %d", p.N)
	}
	if p.M < 1 {
		errs.Add("m", "must be >= 1, got %d", p.M)
	}
	return errs.Err()
}

// Seed is the instance seed of trial of the run seed s, graph.Hash(s,
// trial, DrawProblem, 2, 0): the scenario's instance is trial 0, as
// zosplm's experiment draws it.
func Seed(s uint64, trial int) uint64 { return graph.Hash(s, uint64(trial), DrawProblem, 2, 0) }

// Problem describes the problem kind qcqp: the nonconvex QCQP of the
// paper's section 4.1 (New) drawn from the run seed s as trial 0,
// New(n, m, Seed(s, 0)).
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "qcqp",
		Summary: "nonconvex QCQP of ZO-SPLM's experiment (Q = M^T M - delta I, lambda_min(Q) = -0.1; convex quadratic constraints; box [-10, 10]^n)",
		New:     func() registry.Params { return DefaultParams() },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			pp := p.(*Params)
			q, err := New(pp.N, pp.M, Seed(env.Seed, 0))
			if err != nil {
				return nil, err
			}
			return instance{q}, nil
		},
		Offers: []string{Cap},
	}
}

// instance is a QCQP as a registry.Instance.
type instance struct{ q *QCQP }

func (i instance) Dim() int    { return i.q.Dim() }
func (i instance) QCQP() *QCQP { return i.q }
func (i instance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("qcqp: %w", registry.ErrNoCentral)
}
