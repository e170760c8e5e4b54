package constrlogistic

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FiniteSumSpec describes the problem (43) of Section 5.2 built from given
// data.
type FiniteSumSpec struct {
	// Lambda is the l1 weight (0.03 in the paper).
	Lambda float64
	// Core is m, the number of core constraints (50).
	Core int
	// Seed keys the starting point (entries U[-1, 1]) and the samples of
	// Algorithm 2.
	Seed uint64
	// Solve controls the reference solves (unconstrained and constrained).
	Solve SolveOptions
}

// PaperFiniteSum returns the constants of Section 5.2 with the given seed.
func PaperFiniteSum(seed uint64) FiniteSumSpec {
	return FiniteSumSpec{Lambda: 0.03, Core: 50, Seed: seed}
}

// FiniteSumProblem is an instance of (43).
type FiniteSumProblem struct {
	Spec FiniteSumSpec
	// F is the logistic loss over the data.
	F *Logistic
	// Ref is the solution (w^, b^) of the unconstrained counterpart of (43)
	// (lambda = 0, m = 0, the box kept) from which the core is chosen.
	Ref Optimum
	// Core lists the rows of the core samples.
	Core []int
	// Cons are the core constraints -y~_i (w^T x~_i + b) <= 0 with
	// y~_i = sgn(w^T x~_i + b^).
	Cons *Linear
	// Psi is Lambda ||w||_1 + delta_[-1,1]^{n+1}.
	Psi L1Box
	// X0 is the start, entries U[-1, 1].
	X0 []float64
	// Opt is the constrained optimum (F* = Opt.F) from SolveALM.
	Opt Optimum
}

// NewFiniteSumProblem builds (43) from the data matrix x (s rows a_i,
// n feature columns; LIBSVM a9a is 32,561 x 123) and labels y in {-1, +1}:
// it solves the unconstrained counterpart, takes the Core rows closest to
// its decision boundary (smallest |w^T a_i + b^|, ties by row index) as
// constraints with relabelled y~_i, draws the start, and solves (43) for
// its optimum. Both solves are SolveALM runs certified by their KKT
// residuals.
func NewFiniteSumProblem(x mat.Matrix, y []float64, spec FiniteSumSpec) (*FiniteSumProblem, error) {
	f, err := NewLogistic(x, y)
	if err != nil {
		return nil, err
	}
	return newFiniteSumProblem(f, spec)
}

// NewFiniteSumProblemSparse is NewFiniteSumProblem for sparse data.
func NewFiniteSumProblemSparse(a Sparse, y []float64, spec FiniteSumSpec) (*FiniteSumProblem, error) {
	f, err := NewLogisticSparse(a, y)
	if err != nil {
		return nil, err
	}
	return newFiniteSumProblem(f, spec)
}

func newFiniteSumProblem(f *Logistic, spec FiniteSumSpec) (*FiniteSumProblem, error) {
	if spec.Core < 1 || spec.Core > f.Len() || !(spec.Lambda >= 0) {
		return nil, fmt.Errorf("constrlogistic: finite-sum spec %+v: want 1 <= Core <= s = %d, Lambda >= 0", spec, f.Len())
	}
	n := f.Dim()
	lf := f.Smoothness()
	smooth := FullGradient(f, lf)
	none := &Linear{A: Sparse{Cols: n, Ptr: []int{0}}}
	ref, err := SolveALM(smooth, none, L1Box{Bound: 1, Free: 1}, make([]float64, n), spec.Solve)
	if err != nil {
		return nil, fmt.Errorf("constrlogistic: unconstrained reference solve: %w", err)
	}
	margin := make([]float64, f.Len())
	for i := range margin {
		margin[i] = f.margin(i, ref.X)
	}
	core := nearest(margin, spec.Core)
	p := &FiniteSumProblem{Spec: spec, F: f, Ref: ref, Core: core,
		Cons: coreConstraints(&f.A, core, margin),
		Psi:  L1Box{Lambda: spec.Lambda, Bound: 1, Free: 1},
		X0:   uniformBox(source(spec.Seed, keyStart), n)}
	p.Opt, err = SolveALM(smooth, p.Cons, p.Psi, p.X0, spec.Solve)
	if err != nil {
		return nil, fmt.Errorf("constrlogistic: constrained reference solve: %w", err)
	}
	return p, nil
}
