package penalty

import (
	"math"
	"testing"

	"github.com/consim/consim/problems/constrlogistic"
)

// remarkProblem is the deterministic problem of the Remark 4(iii) test:
// f(x) = (1/2)||x - c||^2 (s = 1), psi = 0.1||x||_1 + delta_[-1,1]^4,
// c(x) = a^T x - b <= 0, whose constraint is active at the optimum.
func remarkProblem(t *testing.T) (*quadSum, *constrlogistic.Linear, constrlogistic.L1Box, []float64, float64) {
	t.Helper()
	cc := []float64{1.5, -0.3, 0.8, 0.05}
	a := []float64{1, 1, 1, 1}
	lin, err := constrlogistic.NewLinear(constrlogistic.Sparse{Cols: 4, Ptr: []int{0, 4}, Idx: []int{0, 1, 2, 3}, Val: a}, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	psi := constrlogistic.L1Box{Lambda: 0.1, Bound: 1}
	xs, lam := quadOptimum(t, cc, a, 0.5, psi)
	if lam <= 0 {
		t.Fatalf("constraint inactive at the optimum (lambda = %g)", lam)
	}
	f := &quadSum{c: [][]float64{cc}}
	return f, lin, psi, xs, f.Value(xs) + psi.Value(xs)
}

// singleLoop is the method Remark 4(iii) describes, written out: for
// k >= 1, with rho_1 = sqrt 2, rho_k = 3(k+6)/16 (k >= 2), alpha_1 = 6/7,
// alpha_k = 6/(k+6) (k >= 2), gamma_k = 1/(8 (L + rho_k L_c2) alpha_k),
//
//	y_k     = (1 - alpha_k) x_k + alpha_k z_k
//	z_{k+1} = prox_{gamma_k psi}(z_k - gamma_k (grad f(y_k) + rho_k grad c(y_k)[c(y_k)]_+))
//	x_{k+1} = (1 - alpha_k) x_k + alpha_k z_{k+1}
//
// an accelerated proximal gradient method applied once to the penalty
// sequence. It returns F(x_k) for k = 1..K+1 and x_{K+1}.
func singleLoop(f *quadSum, c *constrlogistic.Linear, psi constrlogistic.L1Box, x0 []float64, bigK int) ([]float64, []float64) {
	n := len(x0)
	x := append([]float64(nil), x0...)
	z := append([]float64(nil), x0...)
	y, g, cv := make([]float64, n), make([]float64, n), make([]float64, 1)
	lc2 := c.LipGradSq()
	obj := []float64{f.Value(x) + psi.Value(x)}
	for k := 1; k <= bigK; k++ {
		rho, alpha := math.Sqrt2, 6.0/7
		if k >= 2 {
			rho, alpha = 3*float64(k+6)/16, 6/float64(k+6)
		}
		gamma := 1 / (8 * (1 + rho*lc2) * alpha)
		for j := range y {
			y[j] = (1-alpha)*x[j] + alpha*z[j]
		}
		clear(g)
		f.AddGrad(0, y, 1, g)
		c.Eval(y, cv)
		if cv[0] > 0 {
			c.AddJacT(y, cv, rho, g)
		}
		for j := range z {
			z[j] -= gamma * g[j]
		}
		psi.Prox(z, gamma, z)
		for j := range x {
			x[j] = (1-alpha)*x[j] + alpha*z[j]
		}
		obj = append(obj, f.Value(x)+psi.Value(x))
	}
	return obj, x
}

// TestRemark4iii checks that Algorithm 2 with s = 1 and the dynamic
// schedule (34) is the single-loop penalty method of Remark 4(iii) (same
// iterates up to rounding: with s = 1 the variance-reduced gradient
// (grad f(y) - grad f(x~)) + grad f(x~) equals grad f(y) in exact
// arithmetic), and that it converges to the optimum, known in closed form
// up to a one-dimensional root.
func TestRemark4iii(t *testing.T) {
	f, lin, psi, xs, fstar := remarkProblem(t)
	x0 := []float64{-0.9, 0.9, -0.5, 0.7}
	const short = 300
	tr, x, err := RunAlg2(f, lin, psi, Alg2Config{Rule: Thm4ii, K: short, X0: x0})
	if err != nil {
		t.Fatal(err)
	}
	want, wx := singleLoop(f, lin, psi, x0, short)
	if len(tr.Records) != short+1 {
		t.Fatalf("%d records, want %d", len(tr.Records), short+1)
	}
	for k, r := range tr.Records {
		if d := math.Abs(r.Objective - want[k]); d > 1e-12 {
			t.Fatalf("k=%d: F = %.17g, single loop %.17g (diff %g)", k, r.Objective, want[k], d)
		}
		if k > 0 && r.GradEvals != int64(3*k) { // s + 2 T_k = 3 per outer iteration
			t.Fatalf("k=%d: %d gradient evaluations, want %d", k, r.GradEvals, 3*k)
		}
	}
	if d := maxAbsDiff(x, wx); d > 1e-12 {
		t.Fatalf("x_{K+1} differs from the single loop by %g", d)
	}
	// Convergence: Theorem 4(ii) with s = 1 gives |F - F*| and the
	// violation O(log k / k).
	const long = 200000
	tr, x, err = RunAlg2(f, lin, psi, Alg2Config{Rule: Thm4ii, K: long, X0: x0, Every: long})
	if err != nil {
		t.Fatal(err)
	}
	tr.FStar = fstar
	last := tr.Last()
	gap, viol, dist := tr.Gap(len(tr.Records)-1), last.Violation, math.Sqrt(sqDist(x, xs))
	t.Logf("K=%d: |F-F*| = %.3g, violation = %.3g, ||x - x*|| = %.3g", long, gap, viol, dist)
	if gap > 1e-5 || viol > 3e-5 || dist > 3e-5 {
		t.Errorf("K=%d: |F-F*| = %g, violation %g, ||x-x*|| = %g; want <= 1e-5, 3e-5, 3e-5", long, gap, viol, dist)
	}
}

func sqDist(a, b []float64) float64 {
	var s float64
	for j := range a {
		s += (a[j] - b[j]) * (a[j] - b[j])
	}
	return s
}
