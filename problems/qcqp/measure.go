package qcqp

import (
	"fmt"
	"math"
)

// Measures are the three quantities of the stochastic eps-stationarity of
// Definition 1 at one point (x, y), computed with exact gradients (the
// measurement's privilege; the methods see values only):
//
//	Stationarity    = dist(0, grad f(x) + J_h(x)^T y + N_X(x))      (6)
//	Feasibility     = ||proj_{R^m_+}(h(x))|| = ||max(h(x), 0)||      (7)
//	Complementarity = |<y, h(x)>|                                   (8)
//
// For the box X = [Lo, Hi]^n the distance is per coordinate: with
// g = grad f + J^T y, the residual of coordinate i is |g_i| inside the box,
// max(-g_i, 0) at x_i = Lo and max(g_i, 0) at x_i = Hi.
type Measures struct {
	Stationarity    float64
	Feasibility     float64
	Complementarity float64
	// Objective is f(x), for the convergence plots.
	Objective float64
}

// Below reports whether all three measures are strictly below eps, the
// paper's stopping test.
func (m Measures) Below(eps float64) bool {
	return m.Stationarity < eps && m.Feasibility < eps && m.Complementarity < eps
}

// Max is the largest of the three measures.
func (m Measures) Max() float64 {
	return math.Max(m.Stationarity, math.Max(m.Feasibility, m.Complementarity))
}

// Measure returns the Measures of (x, y), len(x) = n, len(y) = m.
func (q *QCQP) Measure(x, y []float64) (Measures, error) {
	if len(x) != q.n || len(y) != q.m {
		return Measures{}, fmt.Errorf("qcqp: measure: len(x) = %d, len(y) = %d, want %d and %d", len(x), len(y), q.n, q.m)
	}
	v := make([]float64, 1+q.m)
	q.Eval(x, v, nil)
	g := make([]float64, q.n)
	q.GradF(x, g)
	gh := make([]float64, q.n)
	var feas, comp float64
	for j, yj := range y {
		hj := v[1+j]
		if hj > 0 {
			feas += hj * hj
		}
		comp += yj * hj
		if yj != 0 {
			q.GradH(j, x, gh)
			for i := range g {
				g[i] += yj * gh[i]
			}
		}
	}
	var st float64
	for i, gi := range g {
		var r float64
		switch {
		case x[i] <= q.Box.Lo:
			r = math.Max(-gi, 0)
		case x[i] >= q.Box.Hi:
			r = math.Max(gi, 0)
		default:
			r = math.Abs(gi)
		}
		st += r * r
	}
	return Measures{Stationarity: math.Sqrt(st), Feasibility: math.Sqrt(feas), Complementarity: math.Abs(comp), Objective: v[0]}, nil
}
