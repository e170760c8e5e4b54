package objective

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Centralized reference solvers for min_{x in X} f(x). They run once per
// problem, off the hot path, and favour accuracy over speed.

// Tolerances on the natural residual ||x - proj_X(x - grad f(x))||.
const (
	targetResidual = 1e-12 // what the solvers aim for
	acceptResidual = 1e-9  // above this the reference optimum is rejected
	fistaResidual  = 1e-4  // hand-over from FISTA to the Newton polish
	maxFistaIter   = 200000
	maxPolishIter  = 50
)

// objective is a smooth f : R^n -> R with the oracles the solvers use.
type objective struct {
	n     int
	lip   float64 // Lipschitz constant of grad f
	value func(x []float64) float64
	grad  func(x, g []float64)
	// hess writes the Hessian of f at x into h (all of h is overwritten).
	hess func(x []float64, h *mat.SymDense)
}

// minimize returns a stationary point of f over X from x0: accelerated
// projected gradient (FISTA with adaptive restart; X = R^n is allowed)
// until the natural residual is below fistaResidual, then an active-set
// Newton polish to targetResidual. If the polish stalls (an indefinite
// reduced Hessian of a nonconvex f), FISTA continues to acceptResidual
// and the polish is retried. It fails if the natural residual stays above
// acceptResidual.
//
// gonum/optimize's L-BFGS is not used: the package pulls in
// golang.org/x/tools through gonum/stat/distmv, which is not a module
// dependency of consim. Newton's method with the exact Hessian reaches
// the same accuracy in a few steps from FISTA's point.
func minimize(f objective, box Box, x0 []float64) ([]float64, error) {
	x := append([]float64(nil), x0...)
	box.Project(x)
	g := make([]float64, f.n)
	var r float64
	for _, tol := range []float64{fistaResidual, acceptResidual / 10} {
		fista(f, box, x, tol)
		polish(f, box, x)
		f.grad(x, g)
		if r = naturalResidual(box, x, g); r <= targetResidual {
			break
		}
	}
	if !(r <= acceptResidual) {
		return nil, fmt.Errorf("reference solve stopped at KKT residual %g, want <= %g", r, acceptResidual)
	}
	return x, nil
}

// fista runs accelerated projected gradient with step 1/L on f over X, in
// place on x:
//
//	x+ = proj_X(y - grad f(y)/L),  t+ = (1 + sqrt(1 + 4t^2))/2,
//	y+ = x+ + ((t - 1)/t+)(x+ - x),
//
// restarting the momentum (t = 1, y = x+) whenever (y - x+)^T(x+ - x) > 0
// (O'Donoghue and Candes' gradient restart). It stops when the natural
// residual at x is below tol or after maxFistaIter steps.
func fista(f objective, box Box, x []float64, tol float64) {
	n := f.n
	y := append([]float64(nil), x...)
	prev := make([]float64, n)
	g := make([]float64, n)
	t := 1.0
	for it := range maxFistaIter {
		if it%10 == 0 {
			f.grad(x, g)
			if naturalResidual(box, x, g) < tol {
				return
			}
		}
		copy(prev, x)
		f.grad(y, g)
		for k := range x {
			x[k] = y[k] - g[k]/f.lip
		}
		box.Project(x)
		var restart float64
		for k := range x {
			restart += float64((y[k] - x[k]) * (x[k] - prev[k]))
		}
		if restart > 0 {
			t = 1
			copy(y, x)
			continue
		}
		tn := (1 + math.Sqrt(1+float64(4*t*t))) / 2
		beta := (t - 1) / tn
		for k := range y {
			y[k] = x[k] + float64(beta*(x[k]-prev[k]))
		}
		t = tn
	}
}

// polish refines x in place with projected Newton steps on the free
// variables: with the active set A = {k : x_k = Lo, g_k > 0} u
// {k : x_k = Hi, g_k < 0} held fixed, it solves H_FF d_F = -g_F and takes
// x+ = proj_X(x + s d) with the largest s in {1, 1/2, ...} that lowers
// the natural residual without raising f by more than roundoff (so a
// nonconvex f is not steered to a nearby saddle). It stops at targetResidual, when the reduced
// Hessian is not positive definite, or when no step helps.
func polish(f objective, box Box, x []float64) {
	n := f.n
	g := make([]float64, n)
	trial := make([]float64, n)
	h := mat.NewSymDense(n, nil)
	f.grad(x, g)
	res := naturalResidual(box, x, g)
	fx := f.value(x)
	for range maxPolishIter {
		if res <= targetResidual {
			return
		}
		var free []int
		for k, v := range x {
			if (v <= box.Lo && g[k] > 0) || (v >= box.Hi && g[k] < 0) {
				continue
			}
			free = append(free, k)
		}
		if len(free) == 0 {
			return
		}
		f.hess(x, h)
		hf := mat.NewSymDense(len(free), nil)
		rhs := mat.NewVecDense(len(free), nil)
		for p, kp := range free {
			rhs.SetVec(p, -g[kp])
			for q := p; q < len(free); q++ {
				hf.SetSym(p, q, h.At(kp, free[q]))
			}
		}
		var chol mat.Cholesky
		if !chol.Factorize(hf) {
			return
		}
		var d mat.VecDense
		if err := chol.SolveVecTo(&d, rhs); err != nil {
			return
		}
		improved := false
		for s := 1.0; s > 1e-6; s /= 2 {
			copy(trial, x)
			for p, k := range free {
				trial[k] += float64(s * d.AtVec(p))
			}
			box.Project(trial)
			f.grad(trial, g)
			ft := f.value(trial)
			if r := naturalResidual(box, trial, g); r < res && ft <= fx+float64(1e-12*(1+math.Abs(fx))) {
				copy(x, trial)
				res, fx = r, ft
				improved = true
				break
			}
		}
		if !improved {
			f.grad(x, g)
			return
		}
	}
}
