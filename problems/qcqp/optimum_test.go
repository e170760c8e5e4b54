package qcqp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/objective"
)

// TestReferenceCertificate: the Reference of NC-QCQP instances with one
// constraint satisfies the S-lemma's global optimality conditions (KKT
// stationarity with mu >= 0, Q + mu A_1 positive semidefinite, the
// constraint active), and no feasible point of a random search beats it.
func TestReferenceCertificate(t *testing.T) {
	for _, tc := range []struct {
		n    int
		seed uint64
	}{{5, 1}, {20, 2}, {50, Seed(1, 0)}} {
		q, err := New(tc.n, 1, tc.seed)
		if err != nil {
			t.Fatal(err)
		}
		ref := q.Reference()
		if ref.X == nil {
			t.Fatalf("n=%d: no reference: %s", tc.n, ref.Why)
		}
		x := ref.X
		if f := q.F(x); f != ref.F {
			t.Errorf("n=%d: F = %v, f(X) = %v", tc.n, ref.F, f)
		}
		h := make([]float64, 1)
		q.H(x, h)
		if h[0] > 1e-12 || h[0] < -1e-9 {
			t.Errorf("n=%d: h_1(x*) = %v, want 0 (active)", tc.n, h[0])
		}
		if !(ref.Mu > 0) {
			t.Errorf("n=%d: mu = %v, want > 0 (Q is indefinite)", tc.n, ref.Mu)
		}
		g, gh := make([]float64, tc.n), make([]float64, tc.n)
		q.GradF(x, g)
		q.GradH(0, x, gh)
		var res, scale float64
		for i := range g {
			r := g[i] + ref.Mu*gh[i]
			res += r * r
			scale += g[i] * g[i]
		}
		if math.Sqrt(res) > 1e-9*math.Max(1, math.Sqrt(scale)) {
			t.Errorf("n=%d: ||grad f + mu grad h|| = %v", tc.n, math.Sqrt(res))
		}
		m := mat.NewSymDense(tc.n, nil)
		for i := range tc.n {
			for j := i; j < tc.n; j++ {
				m.SetSym(i, j, q.Q.At(i, j)+ref.Mu*q.A[0].At(i, j))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(m, false) {
			t.Fatal("eigen")
		}
		if lmin := eig.Values(nil)[0]; lmin < -1e-9 {
			t.Errorf("n=%d: lambda_min(Q + mu A_1) = %v < 0", tc.n, lmin)
		}
		// Random feasible points: the segment from a feasible point to a
		// random direction, scaled onto the constraint's boundary or
		// inside it.
		rng := rand.New(rand.NewPCG(tc.seed, 7))
		for range 2000 {
			y := make([]float64, tc.n)
			for i := range y {
				y[i] = x[i] + rng.NormFloat64()*math.Pow(10, -4*rng.Float64())
			}
			q.H(y, h)
			if h[0] > 0 {
				continue
			}
			if f := q.F(y); f < ref.F-1e-12*math.Abs(ref.F) {
				t.Fatalf("n=%d: feasible point with f = %v below f* = %v", tc.n, f, ref.F)
			}
		}
	}
}

// TestReferenceBruteForce: in two dimensions the reference equals the
// minimum over a fine grid of the feasible ellipse (boundary by angle,
// interior by radius).
func TestReferenceBruteForce(t *testing.T) {
	Q := mat.NewSymDense(2, []float64{1, 0.5, 0.5, -2})
	A := mat.NewSymDense(2, []float64{2, 0.3, 0.3, 1})
	q, err := FromData(Q, []float64{0.3, -0.7}, []*mat.SymDense{A}, [][]float64{{0.1, 0.2}}, []float64{-1}, objective.Box{Lo: -10, Hi: 10})
	if err != nil {
		t.Fatal(err)
	}
	ref := q.Reference()
	if ref.X == nil {
		t.Fatal(ref.Why)
	}
	best := math.Inf(1)
	h := make([]float64, 1)
	for k := range 400000 {
		a := 2 * math.Pi * float64(k) / 400000
		u := []float64{math.Cos(a), math.Sin(a)}
		// The largest s with h(s u) <= 0 solves (1/2) s^2 u^T A u + s b^T u - 1 = 0.
		var ua mat.VecDense
		ua.MulVec(A, mat.NewVecDense(2, u))
		qa, qb := 0.5*mat.Dot(mat.NewVecDense(2, u), &ua), 0.1*u[0]+0.2*u[1]
		s := (-qb + math.Sqrt(qb*qb+4*qa)) / (2 * qa)
		for _, r := range []float64{s, 0.5 * s} {
			y := []float64{r * u[0], r * u[1]}
			q.H(y, h)
			if h[0] <= 1e-12 {
				best = math.Min(best, q.F(y))
			}
		}
	}
	if ref.F > best+1e-9 || best-ref.F > 1e-6 {
		t.Errorf("reference f* = %.12g, grid minimum %.12g", ref.F, best)
	}
}

// TestReferenceNone: more than one constraint has no certified reference,
// and says why.
func TestReferenceNone(t *testing.T) {
	q, err := New(6, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	ref := q.Reference()
	if ref.X != nil || !math.IsNaN(ref.F) || ref.Why == "" {
		t.Errorf("m = 2: reference %+v, want none with a reason", ref)
	}
}
