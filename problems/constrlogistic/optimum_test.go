package constrlogistic

import (
	"math"
	"testing"
)

// remarkProblem is the deterministic problem of the Remark 4(iii) test:
// f(x) = (1/2)||x - c||^2 (s = 1), psi = 0.1||x||_1 + delta_[-1,1]^4,
// c(x) = a^T x - b <= 0, whose constraint is active at the optimum.
func remarkProblem(t *testing.T) (*quadSum, *Linear, L1Box, []float64, float64) {
	t.Helper()
	cc := []float64{1.5, -0.3, 0.8, 0.05}
	a := []float64{1, 1, 1, 1}
	lin, err := NewLinear(Sparse{Cols: 4, Ptr: []int{0, 4}, Idx: []int{0, 1, 2, 3}, Val: a}, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	psi := L1Box{Lambda: 0.1, Bound: 1}
	xs, lam := quadOptimum(t, cc, a, 0.5, psi)
	if lam <= 0 {
		t.Fatalf("constraint inactive at the optimum (lambda = %g)", lam)
	}
	f := &quadSum{c: [][]float64{cc}}
	return f, lin, psi, xs, f.Value(xs) + psi.Value(xs)
}

// quadSum is fbar(x) = (1/s) sum_i (1/2)||x - c_i||^2, L_i = 1.
type quadSum struct{ c [][]float64 }

func (q *quadSum) Dim() int        { return len(q.c[0]) }
func (q *quadSum) Len() int        { return len(q.c) }
func (q *quadSum) Lip(int) float64 { return 1 }
func (q *quadSum) Value(x []float64) float64 {
	var s float64
	for _, c := range q.c {
		for j, v := range x {
			s += 0.5 * (v - c[j]) * (v - c[j])
		}
	}
	return s / float64(len(q.c))
}
func (q *quadSum) AddGrad(i int, x []float64, scale float64, g []float64) {
	for j, v := range x {
		g[j] += scale * (v - q.c[i][j])
	}
}

// quadOptimum returns the minimizer of (1/2)||x - c||^2 + psi(x) s.t.
// a^T x <= b, with psi = L1Box: x(lambda) = prox_psi(c - lambda a) and
// lambda = 0 if x(0) is feasible, else the root of a^T x(lambda) = b found
// by bisection (a^T x(lambda) is nonincreasing in lambda).
func quadOptimum(t *testing.T, c, a []float64, b float64, psi L1Box) ([]float64, float64) {
	t.Helper()
	x := make([]float64, len(c))
	at := func(lam float64) float64 {
		for j := range x {
			x[j] = c[j] - lam*a[j]
		}
		psi.Prox(x, 1, x)
		var s float64
		for j := range x {
			s += a[j] * x[j]
		}
		return s
	}
	if at(0) <= b {
		return append([]float64(nil), x...), 0
	}
	lo, hi := 0.0, 1.0
	for at(hi) > b {
		hi *= 2
		if hi > 1e12 {
			t.Fatal("quadOptimum: infeasible")
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if at(mid) > b {
			lo = mid
		} else {
			hi = mid
		}
	}
	at(hi)
	return append([]float64(nil), x...), hi
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for j := range a {
		d = math.Max(d, math.Abs(a[j]-b[j]))
	}
	return d
}

// TestSolveALMClosedForm checks the independent solver against the
// closed-form optimum of the Remark 4(iii) problem.
func TestSolveALMClosedForm(t *testing.T) {
	f, lin, psi, xs, fstar := remarkProblem(t)
	opt, err := SolveALM(Smooth{Value: f.Value, Lip: 1, Grad: func(x, g []float64) {
		clear(g)
		f.AddGrad(0, x, 1, g)
	}}, lin, psi, []float64{0, 0, 0, 0}, SolveOptions{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(opt.X, xs); d > 1e-10 || math.Abs(opt.F-fstar) > 1e-10 {
		t.Errorf("ALM x differs from the closed form by %g, F by %g", d, opt.F-fstar)
	}
}

// TestL1BoxProx compares the prox with a fine grid search of the
// one-dimensional problems it separates into.
func TestL1BoxProx(t *testing.T) {
	psi := L1Box{Lambda: 0.3, Bound: 1, Free: 1}
	v := []float64{2.5, -0.2, 0.29, -1.7, 0.5, 3}
	const gamma = 0.5
	out := make([]float64, len(v))
	psi.Prox(v, gamma, out)
	for j, vj := range v {
		best, arg := math.Inf(1), 0.0
		for u := -1.0; u <= 1.0; u += 1e-5 {
			h := (u - vj) * (u - vj) / 2
			if j < len(v)-psi.Free {
				h += gamma * psi.Lambda * math.Abs(u)
			}
			if h < best {
				best, arg = h, u
			}
		}
		if math.Abs(out[j]-arg) > 2e-5 {
			t.Errorf("prox coordinate %d: %g, grid %g", j, out[j], arg)
		}
	}
	if got := psi.Value([]float64{0.5, -0.25, 1}); math.Abs(got-0.3*0.75) > 1e-15 {
		t.Errorf("psi = %g", got)
	}
	if !math.IsInf(psi.Value([]float64{1.5, 0, 0}), 1) {
		t.Error("psi finite outside the box")
	}
}
