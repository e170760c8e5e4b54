package objective

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// quadratic is f(x) = (1/2) sum_k d_k (x_k - c_k)^2, a separable test
// objective whose stochastic gradient is grad f(x) + sigma xi with
// xi ~ N(0, I_n) drawn from the caller's rng. It holds no scratch and is
// safe for concurrent use.
type quadratic struct {
	d, c  []float64
	sigma float64
}

// Quadratic returns f(x) = (1/2) sum_k d_k (x_k - c_k)^2 on R^n with an
// exact stochastic gradient (sigma = 0). Entries of diag or c beyond
// their length default to d_k = 1 and c_k = 0; entries beyond n are
// ignored, so nil slices give (1/2)||x||^2.
func Quadratic(n int, diag []float64, c []float64) Local {
	q := &quadratic{d: make([]float64, max(n, 0)), c: make([]float64, max(n, 0))}
	for k := range q.d {
		q.d[k] = 1
		if k < len(diag) {
			q.d[k] = diag[k]
		}
		if k < len(c) {
			q.c[k] = c[k]
		}
	}
	return q
}

// QuadraticNoisy returns f(x) = (1/2) sum_k d_k (x_k - c_k)^2 on R^n,
// n = len(d), whose StochGrad is grad f(x) + sigma xi, xi ~ N(0, I_n)
// drawn from the rng it is given: unbiased with variance sigma^2 n, and
// reproducible for a seeded rng. Missing entries of c are 0.
func QuadraticNoisy(d, c []float64, sigma float64) Local {
	q := Quadratic(len(d), d, c).(*quadratic)
	q.sigma = math.Abs(sigma)
	return q
}

// Dim is n.
func (q *quadratic) Dim() int { return len(q.d) }

// Value returns (1/2) sum_k d_k (x_k - c_k)^2.
func (q *quadratic) Value(x []float64) float64 {
	var s float64
	for k, d := range q.d {
		r := x[k] - q.c[k]
		s += float64(d * r * r)
	}
	return s / 2
}

// Grad writes g_k = d_k (x_k - c_k).
func (q *quadratic) Grad(x, g []float64) {
	for k, d := range q.d {
		g[k] = d * (x[k] - q.c[k])
	}
}

// StochGrad writes g_k = d_k (x_k - c_k) + sigma xi_k and returns 1.
func (q *quadratic) StochGrad(x, g []float64, rng *rand.Rand) int {
	q.Grad(x, g)
	if q.sigma > 0 {
		for k := range q.d {
			g[k] += float64(q.sigma * rng.NormFloat64())
		}
	}
	return 1
}

// Smoothness returns max_k |d_k|.
func (q *quadratic) Smoothness() float64 {
	var l float64
	for _, d := range q.d {
		l = math.Max(l, math.Abs(d))
	}
	return l
}

// NewQuadraticProblem returns the problem with N = len(d) agents,
// f_i(x) = (1/2) sum_k d[i][k] (x_k - c[i][k])^2 with stochastic-gradient
// noise sigma, over X = box. f is separable, so its minimizer over the
// box is exact: x*_k = proj_[Lo,Hi]( sum_i d_ik c_ik / sum_i d_ik ),
// provided sum_i d_ik > 0 for every k (checked).
func NewQuadraticProblem(box Box, d, c [][]float64, sigma float64) (*Problem, error) {
	if len(d) == 0 {
		return nil, fmt.Errorf("quadratic problem: no agents, want len(d) >= 1")
	}
	if len(c) != len(d) {
		return nil, fmt.Errorf("quadratic problem: len(c) = %d, want len(d) = %d", len(c), len(d))
	}
	if math.IsNaN(box.Lo) || math.IsNaN(box.Hi) || !(box.Lo < box.Hi) {
		return nil, fmt.Errorf("quadratic problem: box [%g, %g], want Lo < Hi", box.Lo, box.Hi)
	}
	n := len(d[0])
	if n == 0 {
		return nil, fmt.Errorf("quadratic problem: len(d[0]) = 0, want n >= 1")
	}
	p := &Problem{
		Name:   fmt.Sprintf("quadratic(n=%d,N=%d)", n, len(d)),
		Locals: make([]Local, len(d)),
		Box:    box,
		XStar:  make([]float64, n),
		Convex: true,
	}
	sumD := make([]float64, n)
	for i := range d {
		if len(d[i]) != n || len(c[i]) != n {
			return nil, fmt.Errorf("quadratic problem: agent %d has len(d) = %d, len(c) = %d, want both %d", i, len(d[i]), len(c[i]), n)
		}
		p.Locals[i] = QuadraticNoisy(d[i], c[i], sigma)
		for k := range n {
			sumD[k] += d[i][k]
			p.XStar[k] += float64(d[i][k] * c[i][k])
		}
	}
	for k := range n {
		if !(sumD[k] > 0) {
			return nil, fmt.Errorf("quadratic problem: sum_i d_ik = %g at k = %d, want > 0 (f strictly convex in every coordinate)", sumD[k], k)
		}
		p.XStar[k] /= sumD[k]
	}
	box.Project(p.XStar)
	p.FStar = p.Value(p.XStar)
	return p, nil
}
