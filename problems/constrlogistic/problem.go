// Package constrlogistic is the constrained l1-regularized logistic
// regression of Lu and Xiao ("First-order methods for stochastic and
// finite-sum convex optimization with deterministic constraints", 2025,
// Section 5), an instance of their problem form
//
//	min_x F(x) = f(x) + psi(x)  s.t.  c(x) <= 0,
//
// with f = E[f~(x, xi)] (problem (1)) or the finite sum (1/s) sum_i f_i
// (problem (4)), psi with an exact prox and c deterministic, convex and
// smooth. It owns the oracle interfaces of the form (FiniteSum,
// Stochastic, Constraints, Regularizer), the logistic losses (Logistic,
// LogisticModel), sparse rows and linear constraints (Sparse, Linear), the
// regularizer L1Box, the instances of Sections 5.1 (NewSynthetic) and 5.2
// (NewFiniteSumProblem), the independent solver of their optimum with its
// KKT certificate (SolveALM, KKTResidual), and the problem block and
// registration of kind constrained_logistic (Problem) and its export.
//
// constrlogistic is pure except for Problem's Build, which reads a LIBSVM
// file through package dataset, and the export, which writes through
// problems/datafile: no goroutines, no clocks, no global random source
// (the data come from graph.Hash keys). It may import objective, graph,
// dataset, consensus/registry, problems/datafile and gonum; it must not
// import an algorithm package (consensus/<algorithm>, penalty among them),
// node, coordinator, scenarios or cmd.
package constrlogistic

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// FiniteSum is the smooth part fbar(x) = (1/s) sum_{i=1}^s f_i(x) of the
// finite-sum problem (4), with one oracle per component.
type FiniteSum interface {
	// Dim is n, the length of x.
	Dim() int
	// Len is s, the number of components.
	Len() int
	// Value returns fbar(x).
	Value(x []float64) float64
	// AddGrad adds scale * grad f_i(x) to g (component i is 0-based).
	AddGrad(i int, x []float64, scale float64, g []float64)
	// Lip returns L_i, a Lipschitz constant of grad f_i (Assumption 3).
	Lip(i int) float64
}

// Stochastic is the smooth part f(x) = E[f~(x, xi)] of problem (1) with
// its stochastic first-order oracle (Assumption 2).
type Stochastic interface {
	// Dim is n.
	Dim() int
	// StochGrad writes grad f~(x, xi) into g for one sample xi drawn from
	// rng.
	StochGrad(x, g []float64, rng *rand.Rand)
	// Smoothness returns L_grad_f, a Lipschitz constant of grad f.
	Smoothness() float64
}

// Constraints is the deterministic mapping c : R^n -> R^m of c(x) <= 0.
type Constraints interface {
	// Len is m.
	Len() int
	// Eval writes c(x) into out (len m).
	Eval(x, out []float64)
	// AddJacT adds scale * grad c(x) v = scale * sum_i v_i grad c_i(x) to g.
	AddJacT(x, v []float64, scale float64, g []float64)
	// LipGradSq is L_grad_c2 of (7), sum_i (L_{c_i}^2 + C_i L_{grad c_i}),
	// a Lipschitz constant of the gradient of ||[c(x)]_+||^2/2.
	LipGradSq() float64
}

// Regularizer is psi, a proper closed convex function with an exact prox.
type Regularizer interface {
	// Value returns psi(x) (its finite part; iterates stay in dom psi).
	Value(x []float64) float64
	// Prox writes prox_{gamma psi}(v) = argmin_u gamma psi(u) +
	// ||u - v||^2/2 into out; out may alias v.
	Prox(v []float64, gamma float64, out []float64)
}

// L1Box is psi(x) = Lambda sum_{j < n-Free} |x_j| + delta_{[-Bound,
// Bound]^n}(x): the l1 term of (42) and (43) on w, no l1 on the last Free
// coordinates (the intercept b), and the box on all of (w, b).
type L1Box struct {
	Lambda float64
	Bound  float64
	Free   int
}

// Value implements Regularizer: Lambda ||x_{0..n-Free-1}||_1 (+Inf outside
// the box).
func (p L1Box) Value(x []float64) float64 {
	var s float64
	for j, v := range x {
		if math.Abs(v) > p.Bound {
			return math.Inf(1)
		}
		if j < len(x)-p.Free {
			s += math.Abs(v)
		}
	}
	return p.Lambda * s
}

// Prox implements Regularizer. psi is separable and each coordinate's term
// is an interval indicator plus a multiple of |.|, so the prox is the soft
// threshold by gamma Lambda followed by the clip to [-Bound, Bound].
func (p L1Box) Prox(v []float64, gamma float64, out []float64) {
	t := gamma * p.Lambda
	nl1 := len(v) - p.Free
	for j, vj := range v {
		u := vj
		if j < nl1 {
			switch {
			case u > t:
				u -= t
			case u < -t:
				u += t
			default:
				u = 0
			}
		}
		if u > p.Bound {
			u = p.Bound
		} else if u < -p.Bound {
			u = -p.Bound
		}
		out[j] = u
	}
}

// Validate checks Lambda >= 0, Bound > 0 and Free >= 0.
func (p L1Box) Validate() error {
	if !(p.Lambda >= 0) || !(p.Bound > 0) || p.Free < 0 {
		return fmt.Errorf("constrlogistic: L1Box{Lambda: %g, Bound: %g, Free: %d}: want Lambda >= 0, Bound > 0, Free >= 0", p.Lambda, p.Bound, p.Free)
	}
	return nil
}

// Violation returns ||[c(x)]_+||, using out (len m) as scratch.
func Violation(c Constraints, x, out []float64) float64 {
	c.Eval(x, out)
	var s float64
	for _, v := range out {
		if v > 0 {
			s += v * v
		}
	}
	return math.Sqrt(s)
}

// MeanLip returns L_grad_fbar = sum_i L_i / s of (20).
func MeanLip(f FiniteSum) float64 {
	var s float64
	for i := range f.Len() {
		s += f.Lip(i)
	}
	return s / float64(f.Len())
}

// SumGrad writes sum_i grad f_i(x) into g, summed shard by shard: each
// shard bounds[a] <= i < bounds[a+1] in index order into part (scratch,
// length n), the shards' sums added to g in shard order, as the all-reduce
// of penalty's data-parallel agents does (bounds nil: one shard).
func SumGrad(f FiniteSum, bounds []int, x, g, part []float64) {
	if bounds == nil {
		bounds = []int{0, f.Len()}
	}
	clear(g)
	for a := 0; a+1 < len(bounds); a++ {
		clear(part)
		for i := bounds[a]; i < bounds[a+1]; i++ {
			f.AddGrad(i, x, 1, part)
		}
		for j, v := range part {
			g[j] += v
		}
	}
}
