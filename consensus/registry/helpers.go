package registry

import (
	"fmt"
	"math"

	"github.com/consim/consim/objective"
)

// Helpers shared by the registrations of the consensus algorithms.

// InitialPoints returns every agent's x_0 (new slices).
func (e *Env) InitialPoints() [][]float64 {
	x0 := make([][]float64, e.N)
	for i := range x0 {
		x0[i] = e.Init(i)
	}
	return x0
}

// CheckAgent returns the error of algorithm name asked for agent i when i
// is not one of the run's agents 0..N-1, nil otherwise.
func (e *Env) CheckAgent(name string, i int) error {
	if i < 0 || i >= e.N {
		return fmt.Errorf("%s: agent id %d is outside [0, %d)", name, i, e.N)
	}
	return nil
}

// AllLocals returns f_i of agents 0..n-1 of inst.
func AllLocals(inst Locals, n int) []objective.Local {
	fs := make([]objective.Local, n)
	for i := range fs {
		fs[i] = inst.Local(i)
	}
	return fs
}

// Unconstrained is the error of algorithm name, which does not project
// onto X, on a problem whose box b is not R^n; nil when it is.
func Unconstrained(name string, b objective.Box) error {
	if math.IsInf(b.Lo, -1) && math.IsInf(b.Hi, 1) {
		return nil
	}
	return FieldErrors{{Key: "problem.box", Msg: fmt.Sprintf(
		"%s is unconstrained (it does not project onto X): need [-.inf, .inf], got [%s, %s]", name, Num(b.Lo), Num(b.Hi))}}
}

// StepReference steps a matrix-form reference through rounds 0..rounds-1
// and returns x_i of its n agents: what a Run's Reference returns.
func StepReference(n, rounds int, step func(t int) error, x func(i int) []float64) ([][]float64, error) {
	for t := range rounds {
		if err := step(t); err != nil {
			return nil, err
		}
	}
	xs := make([][]float64, n)
	for i := range xs {
		xs[i] = x(i)
	}
	return xs, nil
}
