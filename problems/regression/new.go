package regression

import (
	"errors"
	"fmt"

	"github.com/consim/consim/objective"
)

// New builds the N = n agents' local problems of the generated problem p
// from the run seed, and the centralized optimum x* of f = (1/N) sum_i
// f_i over X: agent i's rows are drawn as generate.go describes and made
// into f_i by objective.FromShards (every agent holds m rows, so f_i is
// the mean of its losses plus the regularizer); the nonconvex kind's
// multistart solve starts second from x_true. It is deterministic: every
// process that calls New with the same arguments gets the same data,
// XStar and FStar.
func New(p Params, n int, seed uint64) (*objective.Problem, error) {
	if err := p.check(n); err != nil {
		return nil, err
	}
	xTrue := groundTruth(seed, p.Dim)
	shards := make([]objective.Shard, n)
	for i := range shards {
		shards[i] = generate(p, seed, xTrue, i)
	}
	opt := p.given(seed)
	if p.Kind == objective.KindNonconvex {
		opt.Start = xTrue
	}
	prob, err := objective.FromShards(p.Kind, shards, opt)
	if err != nil {
		return nil, err
	}
	prob.Name = fmt.Sprintf("%s(n=%d,m=%d,N=%d)", p.Kind, p.Dim, p.SamplesPerAgent, n)
	return prob, nil
}

// NewLocal builds agent i's local problem f_i alone, identical to
// New(p, n, seed).Locals[i] but without the other agents' data or the
// centralized solve; a node process calls it for its own agent.
func NewLocal(p Params, n int, seed uint64, i int) (objective.Local, error) {
	if err := p.check(n); err != nil {
		return nil, err
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf("problem: agent id %d, want 0 <= id < N = %d", i, n)
	}
	s := generate(p, seed, groundTruth(seed, p.Dim), i)
	f, err := objective.LocalFromShard(p.Kind, s, n, n*p.SamplesPerAgent, p.given(seed))
	if err != nil {
		return nil, fmt.Errorf("problem: agent %d: %w", i, err)
	}
	return f, nil
}

// check validates p as generated data for n agents.
func (p Params) check(n int) error {
	switch p.Kind {
	case objective.KindLeastSquares, objective.KindLogistic, objective.KindNonconvex:
	case "":
		return errors.New("problem: Kind is empty; want one of least_squares, logistic, nonconvex_regression")
	default:
		return fmt.Errorf("problem: Kind %q unknown; want one of least_squares, logistic, nonconvex_regression", p.Kind)
	}
	if n < 1 {
		return fmt.Errorf("problem: number of agents N = %d, want N >= 1", n)
	}
	if p.Data != nil {
		return fmt.Errorf("problem: %s reads its rows from %s; New generates rows (build the instance through the registry)", p.Kind, p.Data.Path)
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("problem %s: %w", p.Kind, err)
	}
	return nil
}

// given is the objective.GivenOptions of p: the regulariser, the batch,
// the box, the Cauchy scale and the seed of the multistart solve.
func (p Params) given(seed uint64) objective.GivenOptions {
	box := p.box()
	return objective.GivenOptions{Name: "generated", Reg: p.Reg, Batch: p.Batch, Lo: box.Lo, Hi: box.Hi, Scale: p.scale(), Seed: seed}
}
