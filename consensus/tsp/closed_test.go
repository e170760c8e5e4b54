package tsp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/problems/bilevel"
)

// quadF is f(x, y) = ||x - a||^2/2 + ||y - b||^2/2.
type quadF struct{ a, b []float64 }

func (q quadF) Value(x, y []float64) float64 {
	return (dist2(x, q.a) + dist2(y, q.b)) / 2
}

func (q quadF) Grad(x, y, gx, gy []float64) {
	for i := range gx {
		gx[i] = x[i] - q.a[i]
	}
	for i := range gy {
		gy[i] = y[i] - q.b[i]
	}
}

// quadG is g(x, y) = ||y - C x||^2/2, C row-major ny x nx: the lower level
// has the unique solution y = C x.
type quadG struct {
	c      []float64
	nx, ny int
}

// resid returns y - C x.
func (q quadG) resid(x, y []float64) []float64 {
	r := make([]float64, q.ny)
	for i := range r {
		r[i] = y[i]
		for j := range q.nx {
			r[i] -= q.c[i*q.nx+j] * x[j]
		}
	}
	return r
}

func (q quadG) Value(x, y []float64) float64 {
	r := q.resid(x, y)
	return dot(r, r) / 2
}

func (q quadG) Grad(x, y, gx, gy []float64) {
	r := q.resid(x, y)
	copy(gy, r)
	for j := range gx {
		gx[j] = 0
		for i := range q.ny {
			gx[j] -= q.c[i*q.nx+j] * r[i]
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// scalarKKT is the closed-form solution of the reformulated problem for
// nx = ny = 1, f = (x-a)^2/2 + (y-b)^2/2, g = (y - c x)^2/2: since
// g*_gamma(x, y) = (y - c x)^2 / (2 (1 + gamma)), the constraint is
// kappa (y - c x)^2 / 2 <= delta with kappa = gamma/(1 + gamma), i.e.
// |y - c x| <= s = sqrt(2 delta/kappa); the solution is (a, b) with lambda = 0
// when |b - c a| <= s, else the projection of (a, b) onto the line
// y - c x = s sign(b - c a), with lambda = (u0 - s sgn)/((1 + c^2) kappa s sgn).
func scalarKKT(a, b, c, gamma, delta float64) (x, y, lam float64) {
	kappa := gamma / (1 + gamma)
	s := math.Sqrt(2 * delta / kappa)
	u0 := b - c*a
	if math.Abs(u0) <= s {
		return a, b, 0
	}
	sg := math.Copysign(s, u0)
	t := (u0 - sg) / (1 + c*c)
	return a + c*t, b - t, t / (kappa * sg)
}

// vectorKKT solves the reformulated problem for general C independently
// of TSP: the KKT conditions x = a + lam kappa C^T r, y = b - lam kappa r
// with r = y - C x give (I + lam kappa (I + C C^T)) r = b - C a, and lam is
// found by bisection on ||r(lam)|| = s (it decreases in lam).
func vectorKKT(t *testing.T, a, b []float64, q quadG, gamma, delta float64) (x, y []float64, lam float64) {
	kappa := gamma / (1 + gamma)
	s := math.Sqrt(2 * delta / kappa)
	C := mat.NewDense(q.ny, q.nx, q.c)
	var cct mat.Dense
	cct.Mul(C, C.T())
	r0 := mat.NewVecDense(q.ny, q.resid(a, b))
	r := func(l float64) *mat.VecDense {
		var m mat.Dense
		m.Scale(l*kappa, &cct)
		for i := range q.ny {
			m.Set(i, i, m.At(i, i)+1+l*kappa)
		}
		var v mat.VecDense
		if err := v.SolveVec(&m, r0); err != nil {
			t.Fatal(err)
		}
		return &v
	}
	if mat.Norm(r0, 2) > s {
		lo, hi := 0.0, 1.0
		for mat.Norm(r(hi), 2) > s {
			hi *= 2
		}
		for range 200 {
			mid := (lo + hi) / 2
			if mat.Norm(r(mid), 2) > s {
				lo = mid
			} else {
				hi = mid
			}
		}
		lam = (lo + hi) / 2
	}
	rv := r(lam)
	var ctr mat.VecDense
	ctr.MulVec(C.T(), rv)
	x = make([]float64, q.nx)
	y = make([]float64, q.ny)
	for j := range x {
		x[j] = a[j] + lam*kappa*ctr.AtVec(j)
	}
	for i := range y {
		y[i] = b[i] - lam*kappa*rv.AtVec(i)
	}
	return x, y, lam
}

// quadParams are TSP constants for the quadratic test problems.
func quadParams(gamma, delta float64, znew bool) Constants {
	return Constants{Alpha: 0.02, Beta: 0.02, Eta: 0.3, Tau: 0.5, Mu: 0.5, Theta: 0.5, Omega: 0.2, P: 2,
		Gamma: gamma, Delta: delta, ZNew: znew}
}

// TestTSPScalarClosedForm checks that TSP converges to the closed-form KKT
// point of the reformulation of a scalar quadratic bilevel problem, with
// the constraint active and inactive, in both z forms.
func TestTSPScalarClosedForm(t *testing.T) {
	for _, tc := range []struct {
		name         string
		a, b, c      float64
		gamma, delta float64
		znew         bool
		wantActive   bool
	}{
		{"active", 1, -1, 2, 0.5, 0.01, false, true},
		{"active znew", 1, -1, 2, 0.5, 0.01, true, true},
		{"inactive", 1, 2.1, 2, 0.5, 0.1, false, false},
		{"negative c", -0.5, 2, -1.5, 1, 0.02, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs, ys, ls := scalarKKT(tc.a, tc.b, tc.c, tc.gamma, tc.delta)
			if (ls > 0) != tc.wantActive {
				t.Fatalf("test case: lambda* = %v, want active %v", ls, tc.wantActive)
			}
			pb := bilevel.Bilevel{NX: 1, NY: 1, F: quadF{a: []float64{tc.a}, b: []float64{tc.b}}, G: quadG{c: []float64{tc.c}, nx: 1, ny: 1}}
			s, err := NewTSP(pb, []float64{0}, []float64{0}, quadParams(tc.gamma, tc.delta, tc.znew))
			if err != nil {
				t.Fatal(err)
			}
			for range 100000 {
				s.Step()
			}
			if math.Abs(s.X[0]-xs) > 1e-8 || math.Abs(s.Y[0]-ys) > 1e-8 || math.Abs(s.Lambda-ls) > 1e-7 {
				t.Fatalf("TSP (x, y, lambda) = (%.10g, %.10g, %.10g), closed form (%.10g, %.10g, %.10g)", s.X[0], s.Y[0], s.Lambda, xs, ys, ls)
			}
		})
	}
}

// TestTSPBilevelLimit checks that with a small slack delta TSP lands near
// the solution of the original bilevel problem min f(x, C x): x* = (a + c b)/(1 + c^2),
// within the O(sqrt(delta)) the slack allows.
func TestTSPBilevelLimit(t *testing.T) {
	a, b, c, gamma, delta := 1.0, -1.0, 2.0, 0.5, 1e-4
	pb := bilevel.Bilevel{NX: 1, NY: 1, F: quadF{a: []float64{a}, b: []float64{b}}, G: quadG{c: []float64{c}, nx: 1, ny: 1}}
	prm := quadParams(gamma, delta, false)
	prm.Alpha, prm.Beta = 0.005, 0.005
	s, err := NewTSP(pb, []float64{0}, []float64{0}, prm)
	if err != nil {
		t.Fatal(err)
	}
	for range 200000 {
		s.Step()
	}
	xb := (a + c*b) / (1 + c*c)
	slack := math.Sqrt(2 * delta * (1 + gamma) / gamma)
	if math.Abs(s.X[0]-xb) > slack || math.Abs(s.Y[0]-c*xb) > 2*slack {
		t.Fatalf("TSP (x, y) = (%g, %g), bilevel solution (%g, %g), slack %g", s.X[0], s.Y[0], xb, c*xb, slack)
	}
}

// TestTSPVectorKKT checks TSP against the bisection solution of a vector
// quadratic problem.
func TestTSPVectorKKT(t *testing.T) {
	q := quadG{c: []float64{1, 0.5, -0.3, 0.8, 0.2, -1}, nx: 2, ny: 3}
	a := []float64{0.5, -1}
	b := []float64{1, 2, -0.5}
	gamma, delta := 0.7, 0.02
	xs, ys, ls := vectorKKT(t, a, b, q, gamma, delta)
	if ls <= 0 {
		t.Fatal("test case should have an active constraint")
	}
	pb := bilevel.Bilevel{NX: 2, NY: 3, F: quadF{a: a, b: b}, G: q}
	for _, znew := range []bool{false, true} {
		s, err := NewTSP(pb, make([]float64, 2), make([]float64, 3), quadParams(gamma, delta, znew))
		if err != nil {
			t.Fatal(err)
		}
		for range 100000 {
			s.Step()
		}
		if d := math.Sqrt(dist2(s.X, xs) + dist2(s.Y, ys)); d > 1e-7 || math.Abs(s.Lambda-ls) > 1e-6 {
			t.Fatalf("znew %v: TSP x %v y %v lambda %v; KKT x %v y %v lambda %v (distance %g)", znew, s.X, s.Y, s.Lambda, xs, ys, ls, d)
		}
	}
}

// TestBaselinesQuadratic checks that the baselines reach the bilevel
// solution of the scalar problem approximately (penalty methods reach it
// only as the penalty grows).
func TestBaselinesQuadratic(t *testing.T) {
	a, b, c := 1.0, -1.0, 2.0
	xb := (a + c*b) / (1 + c*c)
	pb := bilevel.Bilevel{NX: 1, NY: 1, F: quadF{a: []float64{a}, b: []float64{b}}, G: quadG{c: []float64{c}, nx: 1, ny: 1}}
	z := []float64{0}
	pbgd, err := NewPBGD(pb, z, z, PBGDParams{Alpha: 0.002, Beta: 0.002, InnerStep: 0.5, Inner: 5, GammaMax: 100, Ramp: 1000})
	if err != nil {
		t.Fatal(err)
	}
	bome, err := NewBOME(pb, z, z, BOMEParams{Alpha: 0.05, Beta: 0.05, InnerStep: 0.5, Inner: 20, Eta: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	meha, err := NewMEHA(pb, z, z, MEHAParams{Alpha: 0.002, Beta: 0.002, Eta: 0.3, Gamma: 0.5, C: 1, Power: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m   Method
		tol float64
	}{{pbgd, 0.02}, {bome, 0.02}, {meha, 0.05}} {
		for range 20000 {
			tc.m.Step()
		}
		x, y := tc.m.Point()
		if math.Abs(x[0]-xb) > tc.tol || math.Abs(y[0]-c*xb) > 2*tc.tol {
			t.Errorf("%s: (x, y) = (%g, %g), bilevel solution (%g, %g)", tc.m.Name(), x[0], y[0], xb, c*xb)
		}
	}
}

func TestParamsValidate(t *testing.T) {
	good := quadParams(1, 0, false)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, mod := range []func(*Constants){
		func(p *Constants) { p.Alpha = 0 },
		func(p *Constants) { p.Gamma = math.Inf(1) },
		func(p *Constants) { p.Mu = 1.5 },
		func(p *Constants) { p.Omega = 1 },
		func(p *Constants) { p.Delta = -1 },
		func(p *Constants) { p.Tau = math.NaN() },
	} {
		p := good
		mod(&p)
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
