package objective

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
)

// multistartCount is the number of starting points of the nonconvex
// reference solve.
const multistartCount = 6

// keyStarts is the Hash key, in the stream graph.StreamProblem of round 0,
// of the random starting points of the multistart solve. It is reserved
// apart from the keys of the generated regression data (the agent ids and
// math.MaxUint64, see problems/regression).
const keyStarts = math.MaxUint64 - 1

// source returns the PCG generator for Hash key key of the run seed in the
// stream graph.StreamProblem.
func source(seed, key uint64) *rand.Rand {
	return graph.StreamProblem.Rand(seed, 0, key)
}

// sumObjective is f = (1/N) sum_i f_i with L = max_i L_i and the exact
// Hessian (1/N) sum_i hess f_i.
func sumObjective(locals []*glm) objective {
	n := locals[0].n
	tmp := make([]float64, n)
	inv := 1 / float64(len(locals))
	var lip float64
	for _, f := range locals {
		lip = math.Max(lip, f.lip)
	}
	return objective{
		n:   n,
		lip: lip,
		value: func(x []float64) float64 {
			var s float64
			for _, f := range locals {
				s += f.Value(x)
			}
			return s * inv
		},
		grad: func(x, g []float64) { fullGrad(locals, x, g, tmp) },
		hess: func(x []float64, h *mat.SymDense) {
			h.Zero()
			for _, f := range locals {
				f.addHess(x, inv, h)
			}
		},
	}
}

// leastSquaresOptimum solves min_{x in X} f(x) for the least-squares
// kind. f(x) = (1/2) x^T H x - q^T x + const with
//
//	H = (1/N) sum_i A_i^T A_i / m + lambda I,  q = (1/N) sum_i A_i^T b_i / m,
//
// so the unconstrained minimizer solves the normal equations H x = q
// (Cholesky). If it lies outside X, the box-constrained problem is solved
// by FISTA with restart on the quadratic and finished by the active-set
// Newton step, which is exact once the active set is identified; the
// natural residual is driven below 1e-12.
func leastSquaresOptimum(locals []*glm, lambda float64, box Box) ([]float64, error) {
	n := locals[0].n
	h := mat.NewSymDense(n, nil)
	q := mat.NewVecDense(n, nil)
	var aTb mat.VecDense
	for _, f := range locals {
		w := 1 / (float64(len(locals)) * float64(f.m))
		a := mat.NewDense(f.m, n, f.A)
		h.SymRankK(h, w, a.T())
		aTb.MulVec(a.T(), mat.NewVecDense(f.m, f.b))
		q.AddScaledVec(q, w, &aTb)
	}
	for j := range n {
		h.SetSym(j, j, h.At(j, j)+lambda)
	}
	var x mat.VecDense
	var chol mat.Cholesky
	if chol.Factorize(h) {
		if err := chol.SolveVecTo(&x, q); err == nil {
			xs := append([]float64(nil), x.RawVector().Data...)
			if inBox(box, xs) {
				return xs, nil
			}
		}
	} else if !box.bounded() {
		return nil, errors.New("least squares normal equations are singular (fewer than Dim independent rows); use Reg > 0 or a bounded box")
	}
	lip, err := symLambdaMax(h)
	if err != nil {
		return nil, fmt.Errorf("least squares smoothness: %w", err)
	}
	hx := mat.NewVecDense(n, nil)
	obj := objective{
		n:   n,
		lip: lip,
		value: func(x []float64) float64 {
			xv := mat.NewVecDense(n, x)
			hx.MulVec(h, xv)
			return float64(mat.Dot(xv, hx)/2) - float64(mat.Dot(xv, q))
		},
		grad: func(x, g []float64) {
			hx.MulVec(h, mat.NewVecDense(n, x))
			floats.SubTo(g, hx.RawVector().Data, q.RawVector().Data)
		},
		hess: func(_ []float64, dst *mat.SymDense) { dst.CopySym(h) },
	}
	return minimize(obj, box, make([]float64, n))
}

// inBox reports whether x lies in X.
func inBox(b Box, x []float64) bool {
	for _, v := range x {
		if v < b.Lo || v > b.Hi {
			return false
		}
	}
	return true
}

// multistartOptimum is the reference point of the nonconvex kind: the best
// stationary point over X found from multistartCount deterministic starts
// (0, proj_X(start) for the caller's start, and random points drawn from
// the run seed: uniform on a bounded box, N(0, 4I) projected otherwise). f is nonconvex, so this
// is the best value found, not a certified global minimum.
func multistartOptimum(locals []*glm, box Box, seed uint64, start []float64) ([]float64, error) {
	n := locals[0].n
	obj := sumObjective(locals)
	rng := source(seed, keyStarts)
	var (
		best  []float64
		bestF = math.Inf(1)
		errs  []error
	)
	for s := range multistartCount {
		x0 := make([]float64, n)
		switch {
		case s == 1:
			copy(x0, start)
		case s > 1:
			for j := range x0 {
				if box.bounded() {
					x0[j] = box.Lo + float64((box.Hi-box.Lo)*rng.Float64())
				} else {
					x0[j] = 2 * rng.NormFloat64()
				}
			}
		}
		x, err := minimize(obj, box, x0)
		if err != nil {
			errs = append(errs, fmt.Errorf("start %d: %w", s, err))
			continue
		}
		if v := obj.value(x); v < bestF {
			best, bestF = x, v
		}
	}
	if best == nil {
		return nil, errors.Join(errs...)
	}
	return best, nil
}
