package penalty

import (
	"math"

	"github.com/consim/consim/problems/constrlogistic"
)

// Record is the state of a method after Iter iterations (outer iterations
// for Algorithm 2; Iter = 0 is the starting point).
type Record struct {
	Iter int
	// GradEvals is the cumulative number of component gradient evaluations
	// grad f_i (Algorithm 2, EAG) or stochastic gradients grad f~(., xi)
	// (Algorithm 1). Gradients of the deterministic constraints are not
	// counted, as in the paper's first-order oracle complexity.
	GradEvals int64
	// Objective is F(x) = f(x) + psi(x) at the method's output point.
	Objective float64
	// Violation is ||[c(x)]_+||.
	Violation float64
	// Rho is the penalty parameter of the last iteration (0 for EAG).
	Rho float64
}

// Trace is the history of one method on one problem.
type Trace struct {
	Method string
	// FStar is the optimal value F* the gaps are measured against (NaN if
	// unknown).
	FStar   float64
	Records []Record
}

// Gap returns |F(x) - F*| of record i, the optimality measure of (3).
func (t *Trace) Gap(i int) float64 { return math.Abs(t.Records[i].Objective - t.FStar) }

// Last returns the final record.
func (t *Trace) Last() Record { return t.Records[len(t.Records)-1] }

// recorder decides which iterations are recorded.
type recorder struct {
	every, last int
}

// want reports whether iteration k (after k iterations) is recorded: the
// start, every every-th, and the last.
func (r recorder) want(k int) bool {
	e := max(r.every, 1)
	return k == 0 || k%e == 0 || k == r.last
}

// objectiveFunc returns F = value + psi.
func objectiveFunc(value func([]float64) float64, psi constrlogistic.Regularizer) func([]float64) float64 {
	return func(x []float64) float64 { return value(x) + psi.Value(x) }
}
