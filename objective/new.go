package objective

import (
	"fmt"
	"math"
)

// New builds the N = n agents' local problems of spec from the run seed,
// and the centralized optimum x* of f = (1/N) sum_i f_i over X (see
// optimum.go). It is deterministic: every process that calls New with the
// same arguments gets the same data, XStar and FStar.
func New(spec Spec, n int, seed uint64) (*Problem, error) {
	if err := spec.Validate(n); err != nil {
		return nil, err
	}
	xTrue := groundTruth(seed, spec.Dim)
	locals := make([]*glm, n)
	for i := range locals {
		l, err := newLocal(spec, seed, xTrue, i)
		if err != nil {
			return nil, err
		}
		locals[i] = l
	}
	p := &Problem{
		Name:   fmt.Sprintf("%s(n=%d,m=%d,N=%d)", spec.Kind, spec.Dim, spec.SamplesPerAgent, n),
		Locals: make([]Local, n),
		Box:    spec.Box(),
		Convex: spec.Kind != KindNonconvex,
	}
	for i, l := range locals {
		p.Locals[i] = l
	}
	var err error
	switch spec.Kind {
	case KindLeastSquares:
		p.XStar, err = leastSquaresOptimum(locals, spec.Reg, p.Box)
	case KindLogistic:
		p.XStar, err = minimize(sumObjective(locals), p.Box, make([]float64, spec.Dim))
	case KindNonconvex:
		p.XStar, err = multistartOptimum(locals, p.Box, seed, xTrue)
	}
	if err != nil {
		return nil, fmt.Errorf("problem %s: optimum: %w", p.Name, err)
	}
	p.FStar = p.Value(p.XStar)
	return p, nil
}

// NewLocal builds agent i's local problem f_i alone, identical to
// New(spec, n, seed).Locals[i] but without the other agents' data or the
// centralized solve; a node process calls it for its own agent.
func NewLocal(spec Spec, n int, seed uint64, i int) (Local, error) {
	if err := spec.Validate(n); err != nil {
		return nil, err
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf("problem: agent id %d, want 0 <= id < N = %d", i, n)
	}
	return newLocal(spec, seed, groundTruth(seed, spec.Dim), i)
}

// newLocal generates agent i's data and wraps them in the kind's loss and
// regularizer.
func newLocal(spec Spec, seed uint64, xTrue []float64, i int) (*glm, error) {
	s := generate(spec, seed, xTrue, i)
	var (
		l loss
		r regularizer
	)
	switch spec.Kind {
	case KindLeastSquares:
		l, r = squared{}, ridge{spec.Reg}
	case KindLogistic:
		l, r = logLoss{}, ridge{spec.Reg}
	case KindNonconvex:
		l, r = cauchy{spec.Scale}, saturating{spec.Reg}
	default:
		return nil, fmt.Errorf("problem: Kind %q unknown", spec.Kind)
	}
	f, err := newGLM(s, l, r, spec.Batch)
	if err != nil {
		return nil, fmt.Errorf("problem: agent %d smoothness: %w", i, err)
	}
	return f, nil
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
